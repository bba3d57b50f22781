"""bench-v5's shared edge classes on crud, txn and money (issue 30): for each class a buggy app (the suite's edge
mutant: a copy of the reference with the one bug) that bench-v3 passes and bench-v5's new ``edge-*`` rows fail,
the reference passing every new row when it prints through ``sys.stdout.buffer``, and the independent apps
written from the prompts alone passing them too."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from swarmgym import REPO_ROOT
from swarmgym.config import load_config
from swarmgym.suitekit.suite import Check, load_suite, materialize
from tests.support.benches import STYLES
from tests.support.grading import check_results

V3 = load_suite("bench-v3", REPO_ROOT / "suites")
V5 = load_suite("bench-v5", REPO_ROOT / "suites")

#: (spec, table check, edge mutant) -> the edge class whose new rows kill it
BUGS = {
    ("crud", "golden_table", "update-qty-float"): "error_reach",
    ("crud", "golden_table", "stock-qty-float"): "number_form",
    ("crud", "golden_table", "sku-nocase"): "case",
    ("crud", "golden_table", "sku-stripped"): "line_end",
    ("crud", "golden_table", "name-collapses-space"): "unicode_space",
    ("txn", "golden_table", "script-lowercased"): "case",
    ("txn", "golden_table", "blank-line-when-silent"): "empty_output",
    ("txn", "hard_golden_table", "incr-isdigit-then-int"): "unicode_digit",
    ("txn", "hard_golden_table", "incr-amount-float"): "number_form",
    ("money", "golden_table", "amount-two-decimals-only"): "example",
    ("money", "golden_table", "amount-isdigit"): "unicode_digit",
    ("money", "golden_table", "weight-isdigit"): "unicode_digit",
    ("money", "golden_table", "exact-part-decimal"): "number_form",
    ("money", "golden_table", "split-names-unchecked"): "error_reach",
    ("money", "golden_table", "split-names-unstripped"): "line_end",
    ("money", "golden_table", "name-collapses-space"): "unicode_space",
    ("money", "golden_table", "blank-line-when-empty"): "empty_output",
    ("money", "golden_table", "settle-tie-casefold"): "ties",
    ("money", "golden_table", "known-casefold-fallback"): "case",
}


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={}, overrides={"checks.timeout": 180})


def _check(suite, spec_id: str, name: str) -> Check:
    [check] = [c for c in suite.spec(spec_id).checks if c.name == name]
    return check


def _edge_rows(check: Check) -> list[dict]:
    return [r for r in json.loads(check.table_file().read_text())["rows"] if r["id"].startswith("edge-")]


def _edge_rows_only(spec_id: str, name: str, folder: Path) -> Check:
    """bench-v5's ``name`` check reading only its table's issue-30 rows (ids ``edge-*``), from ``folder``."""
    check = _check(V5, spec_id, name)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "edges.json").write_text(json.dumps({"rows": _edge_rows(check)}, ensure_ascii=False))
    only = check.model_copy(update={"table": "edges.json"})
    only._root = folder
    return only


def failed_checks(checks: list[Check], ws: Path, cfg) -> dict[str, str]:
    return {r.name: r.detail for r in check_results(checks, ws, cfg) if not r.passed}


def test_every_new_edge_mutant_is_declared_with_its_class_and_every_class_has_rows():
    for (spec_id, _, name), edge in BUGS.items():
        spec = V5.spec(spec_id)
        [m] = [m for m in V5.mutants(spec) if m.name == name]
        assert m.edge == edge
        assert any(edge in r.get("edges", []) for c in spec.checks if c.kind == "rows" for r in _edge_rows(c))


@pytest.mark.slow
@pytest.mark.parametrize("spec_id,check,mutant", sorted(BUGS))
def test_a_bug_of_each_shared_edge_class_passes_bench_v3_and_fails_the_new_rows(spec_id, check, mutant, cfg,
                                                                                 tmp_path):
    [m] = [m for m in V5.mutants(V5.spec(spec_id)) if m.name == mutant]
    ws = materialize(V5, V5.spec(spec_id), tmp_path / mutant, m)
    assert failed_checks([_check(V3, spec_id, check)], ws, cfg) == {}
    failed = failed_checks([_edge_rows_only(spec_id, check, tmp_path)], ws, cfg)
    assert list(failed) == [check] and "edge-" in failed[check]


@pytest.mark.slow
@pytest.mark.parametrize("spec_id", ["crud", "txn", "money"])
def test_the_reference_printing_through_stdout_buffer_passes_every_new_row(spec_id, cfg, tmp_path):
    spec = V5.spec(spec_id)
    ws = materialize(V5, spec, tmp_path / spec_id)
    (ws / spec.app_slug / "__main__.py").write_text(STYLES["buffer_and_os_exit"].format(slug=spec.app_slug))
    checks = [_edge_rows_only(spec_id, c.name, tmp_path / c.name) for c in spec.checks
              if c.kind == "rows" and _edge_rows(c)]
    assert len(checks) == {"crud": 1, "txn": 2, "money": 2}[spec_id]
    assert failed_checks(checks, ws, cfg) == {}


ALT = {"crud": "alt_apps/invtrack", "txn": "alt_apps/txkvbench", "money": "alt_apps_v3/splitpay"}


@pytest.mark.slow
@pytest.mark.parametrize("spec_id", sorted(ALT))
def test_an_independent_correct_app_passes_every_new_row(spec_id, cfg, tmp_path):
    """No false alarm: the apps written from the prompts alone (other layouts and styles) pass the new rows."""
    spec = V5.spec(spec_id)
    ws = tmp_path / "ws"
    shutil.copytree(REPO_ROOT / "tests" / "fixtures" / ALT[spec_id], ws)
    checks = [_edge_rows_only(spec_id, c.name, tmp_path / c.name) for c in spec.checks
              if c.kind == "rows" and _edge_rows(c)]
    assert checks and failed_checks(checks, ws, cfg) == {}
