"""bench-v5's shared edge classes on fsm, modular and logs (issue #30): for each class a bug written from the
prompt that every bench-v3 row and value check lets pass and bench-v5's new rows fail, and the reference
passing those rows when it prints through ``sys.stdout.buffer``."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from swarmgym.config import load_config
from swarmgym.suitekit.coverage import coverage, table_rows
from swarmgym.suitekit.suite import TABLE_KINDS, Check, materialize
from tests.support.benches import STYLES, V3, V5
from tests.support.grading import check_results

SPECS = ("fsm", "modular", "logs")
CLASSES = ("example", "calendar", "error_reach", "number_form", "unicode_digit", "unicode_space", "case",
           "line_end", "empty_output", "ties")

# the edge mutant of each (spec, class): a bug bench-v3 lets pass (spec, class, the bench-v5 check that fails)
BUGS = {
    "transition-time-range-regex": ("fsm", "example", "golden_table"),
    "refund-time-traceback": ("fsm", "calendar", "golden_table"),
    "time-checked-on-pay-only": ("fsm", "error_reach", "golden_table"),
    "id-dollar-anchor": ("fsm", "line_end", "golden_table"),
    "list-prints-empty-line": ("fsm", "empty_output", "golden_table"),
    "history-by-time-then-command": ("fsm", "ties", "golden_table"),
    "transition-id-nocase": ("fsm", "case", "golden_table"),
    "cents-one-decimal": ("modular", "example", "golden_table"),
    "return-date-traceback": ("modular", "calendar", "golden_table"),
    "hold-list-unknown-empty": ("modular", "error_reach", "hard_golden_table"),
    "pay-amount-decimal": ("modular", "number_form", "golden_table"),
    "copies-isdigit": ("modular", "unicode_digit", "golden_table"),
    "id-dollar-anchor@modular": ("modular", "line_end", "golden_table"),
    "member-dup-ignores-case": ("modular", "case", "golden_table"),
    "empty-list-prints-blank-line": ("modular", "empty_output", "golden_table"),
    "path-word-chars": ("logs", "example", "golden_table"),
    "leap-by-four": ("logs", "calendar", "golden_table"),
    "dir-read-traceback": ("logs", "error_reach", "golden_table"),
    "percentile-float-parse": ("logs", "number_form", "hard_golden_table"),
    "strip-unicode-blanks": ("logs", "unicode_space", "golden_table"),
    "status-joined-lines": ("logs", "empty_output", "golden_table"),
    "top-most-common-then-sorted": ("logs", "ties", "golden_table"),
    "protocol-any-case": ("logs", "case", "golden_table"),
}


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={}, overrides={"checks.timeout": 180})


def _name(mutant: str, spec_id: str) -> str:
    """The key of ``mutant`` in BUGS (a name two specs share carries ``@spec``)."""
    return f"{mutant}@{spec_id}" if f"{mutant}@{spec_id}" in BUGS else mutant


def _v3_behaviour(spec_id: str) -> list[Check]:
    """bench-v3's checks that run the app's commands (its tables and shell value checks)."""
    return [c for c in V3.spec(spec_id).checks_for(hard=True) if c.kind in TABLE_KINDS or c.kind == "command_succeeds"]


def _failed(checks: list[Check], ws: Path, cfg) -> dict[str, str]:
    return {r.name: r.detail for r in check_results(checks, ws, cfg) if not r.passed}


def test_each_spec_samples_its_new_classes_with_rows_and_an_edge_mutant_and_has_no_coverage_hole():
    assert coverage(V5, list(SPECS)).problems == []
    for spec_id in SPECS:
        spec = V5.spec(spec_id)
        declared = {e for r in spec.requirements for e in r.edge_classes()} & set(CLASSES)
        assert {c for s, c, _ in BUGS.values() if s == spec_id} == declared, spec_id
        for edge in declared:
            assert any(edge in r.get("edges", []) for r in table_rows(spec)), (spec_id, edge)
            assert [m.name for m in V5.mutants(spec) if m.edge == edge and _name(m.name, spec_id) in BUGS], (spec_id, edge)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", sorted(BUGS))
def test_a_bug_of_each_class_passes_bench_v3_and_fails_bench_v4s_edge_rows(mutant, cfg, tmp_path):
    spec_id, edge, check = BUGS[mutant]
    spec = V5.spec(spec_id)
    [m] = [m for m in V5.mutants(spec) if m.name == mutant.split("@")[0]]
    assert m.edge == edge
    ws = materialize(V5, spec, tmp_path / spec_id, m)
    assert _failed(_v3_behaviour(spec_id), ws, cfg) == {}
    failed = _failed([_edge_rows(spec, check, tmp_path)], ws, cfg)
    assert list(failed) == [check] and "golden rows differ: edge-" in failed[check]


def _edge_rows(spec, name: str, folder: Path) -> Check:
    """``spec``'s rows check ``name`` over this task's edge rows alone (ids ``edge-…``): those rows kill the bug."""
    [c] = [c for c in spec.checks if c.name == name]
    rows = [r for r in json.loads(c.table_file().read_text())["rows"] if r["id"].startswith("edge-")]
    (folder / "edge.json").write_text(json.dumps({"rows": rows}))
    check = Check(name=name, kind=c.kind, table="edge.json", module=c.module)
    check._root = folder
    return check


@pytest.mark.slow
@pytest.mark.parametrize("spec_id", SPECS)
def test_the_reference_printing_through_stdout_buffer_passes_every_edge_row(spec_id, cfg, tmp_path):
    spec = V5.spec(spec_id)
    ws = materialize(V5, spec, tmp_path / spec_id)
    (ws / spec.app_slug / "__main__.py").write_text(STYLES["buffer_and_os_exit"].format(slug=spec.app_slug))
    tables = [c for c in spec.checks_for(hard=True) if c.name in ("golden_table", "hard_golden_table")]
    assert {r.name: r.detail for r in check_results(tables, ws, cfg) if not r.passed} == {}
    shutil.rmtree(ws)
