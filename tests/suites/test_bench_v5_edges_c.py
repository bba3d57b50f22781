"""bench-v5's shared edge classes on fsm, modular and logs (issue #30): for each class a bug written from the
prompt that every bench-v3 row and value check lets pass and bench-v5's new rows fail.  The reference passing those
rows when it prints through ``sys.stdout.buffer``: tests/suites/test_bench_v5.py
``test_a_correct_app_in_another_output_style_passes_every_row_of_bench_v4_and_bench_v5`` (every row of every
``rows`` check)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from swarmgym.config import load_config
from swarmgym.suitekit.coverage import coverage, table_rows
from swarmgym.suitekit.suite import TABLE_KINDS, Check, materialize
from tests.support.benches import V3, V5
from tests.support.grading import check_results

SPECS = ("fsm", "modular", "logs")
CLASSES = ("example", "calendar", "error_reach", "number_form", "unicode_digit", "unicode_space", "case",
           "line_end", "empty_output", "ties")

# the edge mutant of each (spec, class): a bug bench-v3 lets pass (spec, class, the bench-v5 check that fails, a new
# row of that class in it that the bug fails)
BUGS = {
    "transition-time-range-regex": ("fsm", "example", "golden_table", "edge-example-leap-pay"),
    "refund-time-traceback": ("fsm", "calendar", "golden_table", "edge-example-leap-refund"),
    "time-checked-on-pay-only": ("fsm", "error_reach", "golden_table", "edge-calendar-ship"),
    "id-dollar-anchor": ("fsm", "line_end", "golden_table", "edge-id-trailing-newline"),
    "list-prints-empty-line": ("fsm", "empty_output", "golden_table", "edge-list-empty-bytes"),
    "history-by-time-then-command": ("fsm", "ties", "golden_table", "edge-history-same-minute"),
    "transition-id-nocase": ("fsm", "case", "golden_table", "edge-order-case-lookup"),
    "cents-one-decimal": ("modular", "example", "golden_table", "edge-example-prices"),
    "return-date-traceback": ("modular", "calendar", "golden_table", "edge-calendar-loan-return"),
    "hold-list-unknown-empty": ("modular", "error_reach", "hard_golden_table", "edge-reach-unknown-hard"),
    "pay-amount-decimal": ("modular", "number_form", "golden_table", "edge-number-amount-forms"),
    "copies-isdigit": ("modular", "unicode_digit", "golden_table", "edge-number-copies-superscript"),
    "id-dollar-anchor@modular": ("modular", "line_end", "golden_table", "edge-id-trailing-newline"),
    "member-dup-ignores-case": ("modular", "case", "golden_table", "edge-id-case"),
    "empty-list-prints-blank-line": ("modular", "empty_output", "golden_table", "edge-lists-empty-bytes"),
    "path-word-chars": ("logs", "example", "golden_table", "edge-example-line"),
    "leap-by-four": ("logs", "calendar", "golden_table", "edge-calendar-century-leap"),
    "dir-read-traceback": ("logs", "error_reach", "golden_table", "edge-reach-unreadable"),
    "percentile-float-parse": ("logs", "number_form", "hard_golden_table", "edge-percentile-forms"),
    "strip-unicode-blanks": ("logs", "unicode_space", "golden_table", "edge-unicode-blanks"),
    "status-joined-lines": ("logs", "empty_output", "golden_table", "edge-empty-status"),
    "top-most-common-then-sorted": ("logs", "ties", "golden_table", "edge-ties-cut-by-n"),
    "protocol-any-case": ("logs", "case", "golden_table", "edge-case-protocol-and-month"),
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


def _failed(checks: list[Check], ws: Path, cfg, **kw) -> dict[str, str]:
    return {r.name: r.detail for r in check_results(checks, ws, cfg, **kw) if not r.passed}


def test_each_spec_samples_its_new_classes_with_rows_and_an_edge_mutant_and_has_no_coverage_hole():
    assert coverage(V5, list(SPECS)).problems == []
    for spec_id in SPECS:
        spec = V5.spec(spec_id)
        declared = {e for r in spec.requirements for e in r.edge_classes()} & set(CLASSES)
        assert {c for s, c, _, _ in BUGS.values() if s == spec_id} == declared, spec_id
        for edge in declared:
            assert any(edge in r.get("edges", []) for r in table_rows(spec)), (spec_id, edge)
            assert [m.name for m in V5.mutants(spec) if m.edge == edge and _name(m.name, spec_id) in BUGS], (spec_id, edge)
    for mutant, (spec_id, edge, check, row) in BUGS.items():  # the row named to kill each is a new row of its class
        [c] = [c for c in V5.spec(spec_id).checks if c.name == check]
        [r] = [r for r in json.loads(c.table_file().read_text())["rows"] if r["id"] == row]
        assert row.startswith("edge-") and edge in r["edges"], mutant


@pytest.mark.slow
@pytest.mark.parametrize("mutant", sorted(BUGS))
def test_a_bug_of_each_class_passes_bench_v3_and_fails_bench_v4s_edge_rows(mutant, cfg, tmp_path):
    """Every bench-v3 row and value check passes it; the new row named fails it (and so bench-v5's check: each row
    runs in its own folder, and a row that fails alone fails its table)."""
    spec_id, edge, check, row = BUGS[mutant]
    spec = V5.spec(spec_id)
    [m] = [m for m in V5.mutants(spec) if m.name == mutant.split("@")[0]]
    assert m.edge == edge
    ws = materialize(V5, spec, tmp_path / spec_id, m)
    assert _failed(_v3_behaviour(spec_id), ws, cfg) == {}
    [c] = [c for c in spec.checks if c.name == check]
    failed = _failed([c], ws, cfg, row_filter=lambda r: r["id"] == row)
    assert list(failed) == [check] and failed[check].startswith(f"1/1 golden rows differ: {row} `")
