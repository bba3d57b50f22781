"""bench-v3 specs `modular` (libloan, seven modules) and `money` (splitpay, exact cents): traced to the edge.

Fast: the coverage matrix has no hole, every mutant applies, and the frozen golden tables still agree with the
independent model of the prompt that reviewed them (suites/bench-v3/gen/gen_<slug>.py). Slow (sandboxed
grading): the independent app passes every check; in one verify, the reference passes every check and named
bug classes are killed by a check covering the requirement they break, and so is a seeded, stratified sample of
the other mutants (every failure label, edge class and covering check kind not already among the named ones).
"""
from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from swarmgym import REPO_ROOT
from swarmgym.config import load_config
from swarmgym.suitekit.coverage import coverage
from swarmgym.suitekit.suite import load_suite, materialize
from tests.support.grading import check_results
from tests.support.mutant_sample import verify_sample

V3 = load_suite("bench-v3", REPO_ROOT / "suites")
ALT = Path(__file__).resolve().parents[1] / "fixtures" / "alt_apps_v3"
SPECS = ["modular", "money"]

# Bug classes a small model really writes, per spec: each must be killed by a check covering what it breaks.
NAMED = {
    "modular": ["fine-round-half-even", "price-through-float", "natural-id-order", "due-date-30-day-months",
                "owing-five-may-borrow", "csv-joined-by-hand", "cli-writes-file", "unknown-member-keyerror",
                "stub-fines-report"],
    "money": ["parse-through-float", "parse-rounded-float", "tip-through-float", "format-floor-negative",
              "equal-in-given-order", "settle-ties-by-insertion", "csv-quotes-not-doubled", "sql-in-cli",
              "unknown-payer-keyerror", "stub-settle"],
}


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={})


def _gen(slug: str):
    """The spec's table generator as a module (importing it builds the rows and replays them on its model)."""
    path = V3.folder / "gen" / f"gen_{slug}.py"
    spec = importlib.util.spec_from_file_location(f"gen_{slug}", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("spec_id", SPECS)
def test_every_requirement_and_edge_class_has_a_row_or_check_and_a_mutant(spec_id):
    cov = coverage(V3, [spec_id])
    assert cov.problems == [] and cov.ok
    assert spec_id in cov.edge_specs and len(V3.mutants(V3.spec(spec_id))) >= V3.min_mutants_per_spec
    spec = V3.spec(spec_id)
    hard = {r.id for r in spec.requirements if r.hard_only}
    for c in spec.checks:  # hard-only requirements are answered only by hard-only checks
        if set(c.covers or []) & hard:
            assert c.hard_only, c.name


@pytest.mark.parametrize("spec_id", SPECS)
def test_every_mutant_applies_and_each_failure_kind_is_there(spec_id, tmp_path):
    spec = V3.spec(spec_id)
    mutants = V3.mutants(spec)
    for m in mutants:
        assert m.breaks and m.description and m.failure in ("liar", "stub", "crash")
        materialize(V3, spec, tmp_path / m.name, m)
    assert {"liar", "stub", "crash"} <= {m.failure for m in mutants}
    assert sum(m.edge is not None for m in mutants) >= 20


@pytest.mark.parametrize("spec_id,slug", [("modular", "libloan"), ("money", "splitpay")])
def test_the_frozen_golden_tables_still_agree_with_the_independent_model_of_the_prompt(spec_id, slug):
    gen = _gen(slug)
    for name, rows in ((slug, gen.ROWS), (f"{slug}-hard", gen.HARD)):
        frozen = json.loads((V3.folder / "tables" / f"{name}.json").read_text())["rows"]
        assert [r["id"] for r in frozen] == [r["id"] for r in rows]
        for want, got in zip(rows, frozen):
            assert (want["req"], want["edges"]) == (got["req"], got["edges"])
            for n, (w, g) in enumerate(zip(want["steps"], got["steps"], strict=True)):
                where = f"{got['id']} step {n}"
                assert w["argv"] == g["argv"], where
                if w["usage"]:
                    assert g["exit"] == "nonzero", where
                    continue
                assert g["exit"] == w["expect_exit"], where
                if w["expect"] is not None:
                    assert g["out"] == "exact" and w["expect"](g["stdout"]), where
                if (got["id"], n) in gen.CSV_REVIEW:
                    assert g["files"]["{dir}/out.csv"] == {"csv": gen.CSV_REVIEW[(got["id"], n)]}, where


@pytest.mark.slow  # every check of the spec, sandboxed, on the independent app: ~15 s
@pytest.mark.parametrize("spec_id", SPECS)
def test_an_independent_app_passes_every_check(spec_id, cfg, tmp_path):
    """(The reference's every check: the verify below.)"""
    spec = V3.spec(spec_id)
    alt_ws = tmp_path / "alt"
    shutil.copytree(ALT / spec.app_slug, alt_ws, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    alt = check_results(spec.checks_for(hard=True), alt_ws, cfg)
    assert {r.name: r.detail for r in alt if not r.passed} == {}


@pytest.mark.slow  # the reference and ~25 mutants, graded for real
@pytest.mark.parametrize("spec_id", SPECS)
def test_the_reference_passes_every_check_and_named_bugs_and_a_stratified_sample_are_killed(spec_id, cfg):
    """The reference passes every check (both golden tables match); the named bug classes and a stratified
    sample of the other mutants are each killed by a check covering what they break.
    The frozen suite was verified whole when it was frozen (bench-v3's lock:
    test_bench_v3_sim); this guards the harness on it: one mutant per failure label, edge class and covering
    check kind (seeded)."""
    result = verify_sample(V3, cfg, spec_id, always=NAMED[spec_id])
    rows = {r.name: r for r in result.rows}
    assert {"reference", *NAMED[spec_id]} <= set(rows)
    assert sum("golden rows match" in r.detail for r in rows["reference"].results) == 2
    spec = V3.spec(spec_id)
    covers = {c.name: set(c.covers or ()) for c in spec.checks_for(hard=True)}
    for m in V3.mutants(spec):
        if m.name in NAMED[spec_id] and m.breaks:  # the check that killed it answers for a requirement the mutant breaks
            assert all(covers[name] & set(m.breaks) for name in rows[m.name].failed), (m.name, rows[m.name].failed)
    if spec_id == "modular":
        assert rows["cli-writes-file"].failed == ["store_module"]
        assert rows["fine-round-half-even"].failed  # the library's rounding: module_api or the table, whichever runs first
    else:
        assert rows["sql-in-cli"].failed == ["store_module"]
        assert rows["tip-through-float"].failed

