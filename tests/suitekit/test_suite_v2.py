"""bench-v2: traced requirements, golden tables, patch mutants — graded for real (sandboxed subprocesses).

The whole suite was verified when it was frozen (its lock is tested); the ``slow`` verify here runs each
reference, a representative mutant of each real-world failure class per spec by name, and a seeded, stratified
sample of the other mutants.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from swarmgym import REPO_ROOT
from swarmgym.config import load_config
from swarmgym.core.errors import SuiteError
from swarmgym.sim.faults import pick_mutant
from swarmgym.suitekit.coverage import coverage
from swarmgym.suitekit.suite import load_suite, locked_hash, materialize
from tests.support.draws import Fixed
from tests.support.grading import check_results
from tests.support.mutant_sample import verify_sample

V1 = load_suite("bench-v1", REPO_ROOT / "suites")
V2 = load_suite("bench-v2", REPO_ROOT / "suites")
ALT = Path(__file__).parents[1] / "fixtures" / "alt_apps"

# One mutant per failure class a local model really produces, per spec (checked by name in the sampled verify).
REPRESENTATIVE = {
    "crud": ["third-party-import", "src-layout", "failing-own-test", "json-qty-float", "overdraw-partial-write",
             "duplicate-traceback", "stub-stock-out"],
    "compute": ["third-party-import", "tests-misnamed", "float-integral", "left-assoc-pow", "zerodivision-traceback",
                "stub-abs"],
    "txn": ["third-party-import", "no-main-module", "failing-own-test", "autocommit-forgotten", "unknown-keyerror",
            "stub-count"],
}



@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={})


def test_bench_v2_is_frozen_and_bench_v1_is_unchanged():
    assert locked_hash(V2) == V2.hash and locked_hash(V1) == V1.hash and V1.hash != V2.hash


def test_bench_v2_keeps_every_bench_v1_prompt_word_for_word():
    for a, b in zip(V1.specs, V2.specs, strict=True):
        assert (a.id, a.app_slug, a.prompt, a.hard_prompt) == (b.id, b.app_slug, b.prompt, b.hard_prompt)


def test_every_requirement_has_a_check_and_a_mutant_that_breaks_it():
    cov = coverage(V2)
    assert cov.untraced_specs == [] and len(cov.rows) >= 100
    assert [r.id for r in cov.without_check] == [] and [r.id for r in cov.without_mutant] == []
    for spec in V2.specs:  # hard-only requirements are answered only by hard-only checks
        hard = {r.id for r in spec.requirements if r.hard_only}
        for c in spec.checks:
            if set(c.covers or []) & hard:
                assert c.hard_only, c.name


@pytest.mark.slow  # materializes all 115 mutants
def test_every_mutant_patch_applies_and_is_reachable_by_the_simulator(tmp_path):
    for spec in V2.specs:
        mutants = V2.mutants(spec)
        assert len(mutants) >= len(spec.requirements)
        for m in mutants:
            assert m.failure in ("liar", "stub", "crash") and m.breaks and m.description
            materialize(V2, spec, tmp_path / spec.id / m.name, m)
        for hard in (False, True):  # every mutant the prompt can show is drawn for some uniform number
            drawn = set()
            for code in ("liar", "stub", "crash"):
                n = sum(m.failure == code for m in mutants)
                for k in range(n):
                    m = pick_mutant(V2, spec, code, Fixed((k + 0.5) / n), hard)
                    drawn |= {m.name} if m else set()
            hard_ids = {r.id for r in spec.requirements if r.hard_only}
            visible = {m.name for m in mutants if hard or not set(m.breaks) <= hard_ids}
            assert drawn == visible
        assert {"liar", "stub", "crash"} <= {m.failure for m in mutants if not set(m.breaks) <= {
            r.id for r in spec.requirements if r.hard_only}}


def test_a_hunk_that_no_longer_matches_the_reference_is_a_suite_error(tmp_path):
    spec = V2.spec("compute")
    m = next(x for x in V2.mutants(spec) if x.name == "floor-division")
    shutil.copytree(V2.root, tmp_path / "v2", ignore=shutil.ignore_patterns("__pycache__"))
    copy = load_suite(tmp_path / "v2")
    parser = copy.reference_dir(copy.spec("compute")) / "rdcalc" / "parser.py"
    parser.write_text(parser.read_text().replace("value = value / rhs", "value = value.__truediv__(rhs)"))
    with pytest.raises(SuiteError, match="floor-division.*matches 0 times"):
        materialize(copy, copy.spec("compute"), tmp_path / "ws", m)


def test_a_failing_golden_row_names_its_input_and_what_came_out(cfg, tmp_path):
    spec = V2.spec("compute")
    m = next(x for x in V2.mutants(spec) if x.name == "float-integral")
    ws = materialize(V2, spec, tmp_path / "ws", m)
    [res] = check_results([c for c in spec.checks if c.name == "golden_table"], ws, cfg)
    assert not res.passed
    assert "11/97 golden rows differ" in res.detail and "fix05 `eval 64/4/2`: stdout '8.0\\n', want '8\\n'" in res.detail


@pytest.mark.slow  # every bench-v2 check of a spec, sandboxed: ~11 s
@pytest.mark.parametrize("slug", ["invtrack", "rdcalc", "txkvbench"])
def test_an_independent_app_written_from_the_prompt_passes_every_v2_check(slug, cfg, tmp_path):
    spec = V2.spec(slug)
    ws = tmp_path / slug
    shutil.copytree(ALT / slug, ws, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    results = check_results(spec.checks_for(hard=True), ws, cfg)
    assert {r.name: r.detail for r in results if not r.passed} == {}


@pytest.mark.slow  # each reference app and a sample of its mutants, graded for real
@pytest.mark.parametrize("spec_id", list(REPRESENTATIVE))
def test_verify_passes_every_reference_and_kills_the_representative_and_a_stratified_sample_of_mutants(spec_id, cfg):
    """bench-v2 was verified whole (all 115 mutants) when it was frozen, and its lock is tested above; this
    guards the harness on it: each reference passes every v2 check, and the representative mutants (one per
    failure class a local model really produces) plus a seeded, stratified sample (every failure label and
    covering check kind; tests/support/mutant_sample.py) are each killed by a check covering what they break."""
    result = verify_sample(V2, cfg, spec_id, always=REPRESENTATIVE[spec_id], extra=2)
    rows = {r.name: r for r in result.rows}
    ref = rows["reference"]  # every v2 check, hard ones included
    assert {r.name: r.detail for r in ref.results if not r.passed} == {}
    golden = [r for r in ref.results if r.kind == "differential"]
    assert len(golden) == 2 and all("golden rows match" in r.detail for r in golden)
    assert all(rows[n].failed for n in REPRESENTATIVE[spec_id])  # each killed
    assert rows["third-party-import"].failed == ["stdlib_only"]  # it works here; only the rule catches it
