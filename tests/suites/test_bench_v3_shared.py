"""bench-v3's three shared specs (crud, compute, txn): bench-v2's prompts word for word, edge-class golden
rows, edge mutants — and the bug classes of issue 21, each a hand-written app that bench-v2 passes and
bench-v3 fails (tests/fixtures/buggy_apps_v3/), graded for real in the check sandbox.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from swarmgym import REPO_ROOT
from swarmgym.config import load_config
from swarmgym.grading.regrade import regrade_campaign
from swarmgym.grading.suite_verify import verify_suite
from swarmgym.ledger import Ledger
from swarmgym.models import LedgerRecord
from swarmgym.suitekit.coverage import coverage, table_rows
from swarmgym.suitekit.suite import load_suite, materialize
from tests.support.grading import check_results

V2 = load_suite("bench-v2", REPO_ROOT / "suites")
V3 = load_suite("bench-v3", REPO_ROOT / "suites")
SHARED = ["crud", "compute", "txn"]
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ALT = FIXTURES / "alt_apps"          # bench-v2's independent apps, written from the prompts alone
BUGGY = FIXTURES / "buggy_apps_v3"   # written from the prompts alone, each with one of the issue's bugs

# app -> (spec, tier graded, the v3 golden rows its bug must fail)
BUG_CLASSES = {
    "invtrack_truncating": ("crud", False, ["value-float-trap"]),          # 3 x 0.70 prints 2.09
    "invtrack_lenient_qty": ("crud", False, ["add-missing-option", "update-qty-zero"]),
    "rdcalc_g12": ("compute", False, ["big-integral"]),                    # 2^40 -> 1.09951162778e+12
    "rdcalc_spaces": ("compute", False, ["whitespace", "empty"]),          # a tab refused; '' -> traceback
    "invtrack_naive_export": ("crud", True, ["export-edges"]),             # 'Bolt, large' written unquoted
}


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={}, overrides={"checks.timeout": 180})


def grade(suite, spec_id: str, app: Path, hard: bool, cfg, tmp_path: Path) -> dict[str, str]:
    """Copy ``app`` into a fresh workspace, run the suite's checks for the tier: {failed check: detail}."""
    ws = tmp_path / f"{suite.name}-{app.name}"
    shutil.copytree(app, ws, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.db"))
    return {r.name: r.detail for r in check_results(suite.spec(spec_id).checks_for(hard), ws, cfg) if not r.passed}


def test_the_shared_specs_keep_bench_v2_prompts_requirements_and_checks():
    for spec_id in SHARED:
        a, b = V2.spec(spec_id), V3.spec(spec_id)
        assert (a.app_slug, a.prompt, a.hard_prompt) == (b.app_slug, b.prompt, b.hard_prompt)
        assert [(r.id, r.text, r.hard_only) for r in a.requirements] == [(r.id, r.text, r.hard_only) for r in b.requirements]
        assert [c.model_dump(exclude={"covers"}) for c in a.checks] == [c.model_dump(exclude={"covers"}) for c in b.checks]
    assert [s.id for s in V3.specs[:3]] == SHARED  # smoke runs the first spec: crud, as in bench-v2


def test_the_shared_specs_have_no_coverage_hole_and_at_least_30_mutants_each():
    cov = coverage(V3, SHARED)
    assert cov.problems == [] and cov.ok
    assert sorted(cov.edge_specs) == sorted(SHARED)
    for spec_id in SHARED:
        mutants = V3.mutants(V3.spec(spec_id))
        assert len(mutants) >= 30 and {"liar", "stub", "crash"} <= {m.failure for m in mutants}
        with_inputs = [r.id for r in V3.spec(spec_id).requirements if r.edge_classes()]
        assert all(any(m.edge and rid in m.breaks for m in mutants) for rid in with_inputs)
    cells = {(c.id, c.edge) for c in cov.edges}
    for cell in [("C-VALUE", "rounding"), ("C-ADD", "missing"), ("C-UPDATE-QTY", "zero"), ("R-FMT-INT", "big"),
                 ("R-WS", "whitespace"), ("R-ERR-SYNTAX", "empty"), ("C-EXPORT", "separator")]:
        assert cell in cells  # the issue's bug classes are declared edges, sampled and broken


def test_every_v3_mutant_of_the_shared_specs_applies_to_its_reference(tmp_path):
    for spec_id in SHARED:
        spec = V3.spec(spec_id)
        for m in V3.mutants(spec):
            assert m.breaks and m.description and m.failure in ("liar", "stub", "crash")
            materialize(V3, spec, tmp_path / spec_id / m.name, m)


def test_golden_rows_ask_nothing_the_prompts_leave_open():
    """bench-v2's README: the output of item add/update/remove/stock and export, stdout before an error,
    an empty KEYS line are never compared; integral results stay below 10^15 (float and int calculators
    agree there); a left-out required option asks only for a non-zero exit."""
    for r in table_rows(V3.spec("crud")):
        for st in r["steps"]:
            cmd = st["argv"][2:4]
            if cmd[0] in ("stock", "export") or cmd in (["item", "add"], ["item", "update"], ["item", "remove"]):
                assert st["out"] == "any", (r["id"], st["argv"])
            if st["exit"] != 0:
                assert st["out"] == "any"
            if st["out"] == "number2":  # a total below 1000: thousands separators are never asked about
                assert float(st["stdout"]) < 1000
    missing = next(r for r in table_rows(V3.spec("crud")) if r["id"] == "add-missing-option")
    assert [st["exit"] for st in missing["steps"]] == ["nonzero"] * 3 + [0]
    for r in table_rows(V3.spec("compute")):
        for st in r["steps"]:
            if st["exit"] == 0 and "e" not in st["stdout"] and "." not in st["stdout"]:
                assert abs(int(st["stdout"])) < 10**15, (r["id"], st["argv"])
    for r in table_rows(V3.spec("txn")):
        for st in r["steps"]:
            if st["exit"] == 0:
                assert "\n\n" not in "\n" + st["stdout"], (r["id"], st["argv"])  # no empty KEYS line


@pytest.mark.slow
@pytest.mark.parametrize("spec_id", SHARED)
def test_an_independent_app_written_from_the_prompt_passes_every_v3_check(spec_id, cfg, tmp_path):
    assert grade(V3, spec_id, ALT / V3.spec(spec_id).app_slug, True, cfg, tmp_path) == {}


@pytest.mark.slow
@pytest.mark.parametrize("app", sorted(BUG_CLASSES))
def test_a_hand_written_app_with_an_issue_21_bug_passes_bench_v2_and_fails_bench_v3(app, cfg, tmp_path):
    spec_id, hard, rows = BUG_CLASSES[app]
    assert grade(V2, spec_id, BUGGY / app, hard, cfg, tmp_path) == {}
    failed = grade(V3, spec_id, BUGGY / app, hard, cfg, tmp_path)
    table = "hard_golden_table" if rows == ["export-edges"] else "golden_table"
    assert list(failed) == [table], failed
    for row_id in rows:
        assert f"{row_id} `" in failed[table]


ISSUE_21_MUTANTS = {"crud": ["value-truncates", "add-options-optional", "update-qty-zero-ignored", "export-unquoted"],
                    "compute": ["g12-everywhere", "whitespace-space-only", "empty-expr-crash"],
                    "txn": ["split-single-space", "incr-int-binding"]}


@pytest.mark.slow
@pytest.mark.parametrize("spec_id", SHARED)
def test_the_reference_passes_every_v3_check_and_the_issue_21_edge_mutants_are_killed(spec_id, cfg):
    """One verify: the reference passes every v3 check (hard ones included, every golden row matching), and
    each issue-21 edge mutant is killed by a check covering what it breaks."""
    mutants = ISSUE_21_MUTANTS[spec_id]
    result = verify_suite(V3, cfg, workers=2, specs=[spec_id], mutants=mutants)
    rows = {r.name: r for r in result.rows}
    assert set(rows) == {"reference", *mutants}
    ref = rows["reference"].results
    assert len(ref) == len(V3.spec(spec_id).checks_for(hard=True)) and [r.name for r in ref if not r.passed] == []
    assert all("golden rows match" in r.detail for r in ref if r.kind == "differential")
    assert {n: r.problem for n, r in rows.items() if not r.ok} == {}
    assert result.killed == result.mutants == len(mutants)


@pytest.mark.slow
def test_regrade_under_bench_v3_re_grades_a_bench_v2_campaign_of_the_shared_specs(tmp_path):
    cfg = load_config(tmp_path / "home", environ={}, overrides={"checks.timeout": 180})
    ledger = Ledger(cfg.ledger_dir)
    apps = [("crud", "invtrack", None), ("crud", "invtrack", BUGGY / "invtrack_truncating")]
    for i, (spec, slug, app) in enumerate(apps):
        rec = LedgerRecord(session_id=f"s{i}", job_id=f"v2camp:{i:03d}", campaign_id="v2camp", mode="benchmark",
                           spec=spec, app_slug=slug, variant="mlx", tier="medium", suite="bench-v2",
                           suite_hash=V2.hash, overall="pass", functional=True, dimensions={"checks": "pass"}, ts=1.7e9)
        ws = cfg.apps_dir / slug / rec.session_id
        if app is None:
            materialize(V2, V2.spec(spec), ws)
        else:
            shutil.copytree(app, ws)
        ledger.record(rec)
    rows = {r.job_id: r for r in regrade_campaign("v2camp", V3, cfg)}
    assert rows["v2camp:000"].functional is True
    assert rows["v2camp:001"].functional is False and rows["v2camp:001"].failed == ["golden_table"]
    new = {r.job_id: r for r in ledger.records(campaign_id="v2camp")}[f"v2camp:001@{V3.hash}"]
    assert (new.suite, new.regrade_of, new.data["original_suite"]) == ("bench-v3", "v2camp:001", "bench-v2")


def test_the_gen_scripts_wrote_the_tables_the_specs_name():
    for spec_id in SHARED:
        for check in (c for c in V3.spec(spec_id).checks if c.kind == "differential"):
            data = json.loads(check.table_file().read_text())
            assert (V3.folder / data["generator"]).is_file() and data["seed"] == 2026 and data["rows"]
