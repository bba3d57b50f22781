"""bench-v4: bench-v3's prompts word for word, every behavioural check a row decided outside the box on exact,
typed output — the hedge and the haystack fail where bench-v3 let them pass, and a correct app passes
whatever its output style (``print``, ``sys.stdout.buffer``, ``sys.stdout.write``, ``os._exit`` after a flush)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from swarmgym.config import load_config
from swarmgym.grading import difftable
from swarmgym.grading.rowmatch import OUT_MODES
from swarmgym.suitekit.coverage import table_rows
from swarmgym.suitekit.suite import TABLE_KINDS, materialize
from tests.support.benches import V3, V4, failed_checks, row_ids

IDS = [s.id for s in V4.specs]


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={}, overrides={"checks.timeout": 180})


def test_bench_v4_keeps_bench_v3_prompts_requirements_references_and_mutants_word_for_word():
    assert [s.id for s in V4.specs] == [s.id for s in V3.specs]
    for a, b in zip(V3.specs, V4.specs):
        assert (a.app_slug, a.prompt, a.hard_prompt, a.starter) == (b.app_slug, b.prompt, b.hard_prompt, b.starter)
        assert [(r.id, r.text, r.hard_only) for r in a.requirements] == [(r.id, r.text, r.hard_only) for r in b.requirements]
        for r, r4 in zip(a.requirements, b.requirements):  # v4 adds edge classes only
            assert all(set(classes) <= set((r4.inputs or {}).get(name, [])) for name, classes in (r.inputs or {}).items())
        assert [m.name for m in V3.mutants(a)] == [m.name for m in V4.mutants(b)][:len(V3.mutants(a))]
        for ref in sorted(V3.reference_dir(a).rglob("*.py")):
            assert (V4.reference_dir(b) / ref.relative_to(V3.reference_dir(a))).read_bytes() == ref.read_bytes()
    assert V4.hash != V3.hash


def test_no_behavioural_check_of_bench_v4_runs_the_app_inside_a_shell_pipeline():
    """A value check's text in the box is what an app reads from /proc to pass: every check that runs
    the app's commands is a row, compared outside the box."""
    for spec in V4.specs:
        slug = re.escape(spec.app_slug)
        for c in spec.checks:
            if c.kind == "command_succeeds":
                runs_app = re.search(rf"python3 -m {slug} (?!--help >/dev/null)(?!--db dbchk)", c.run or "")
                assert not runs_app or "grep" not in (c.run or ""), (spec.id, c.name)
        converted = {"help", "total_value", "right_assoc_pow", "nested_rollback", "acceptance", "csv_line_ends",
                     "default_file"}
        assert all(c.kind == "rows" for c in spec.checks if c.name in converted or c.name.startswith("hard_help"))
        assert not [c.name for c in spec.checks if c.kind == "differential"]


def test_every_row_is_typed_and_every_error_row_is_exact():
    for spec in V4.specs:
        for r in table_rows(spec):
            assert r["req"] and set(r["req"]) <= {q.id for q in spec.requirements}, (spec.id, r["id"])
            for st in r["steps"]:
                assert st["out"] in OUT_MODES and st["out"] != "number2", (spec.id, r["id"])
                if st["exit"] not in (0, "nonzero"):
                    assert st.get("err") and st["out"] == "any", (spec.id, r["id"])
                if st["out"] == "value":
                    assert re.fullmatch(r"-?\d+\.\d\d", st["stdout"]), (spec.id, r["id"])


def test_the_box_gets_no_expected_value_of_any_table():
    for spec in V4.specs:
        for c in (c for c in spec.checks if c.kind in TABLE_KINDS):
            rows = json.loads(c.table_file().read_text())["rows"]
            inputs = difftable.box_inputs({"module": spec.app_slug, "rows": rows}, range(len(rows)))
            steps = [st for r in inputs["rows"] for st in r["steps"]]
            assert all(set(st) <= {"argv", "stdin", "read", "cwd"} for st in steps), (spec.id, c.name)


def test_the_generator_wrote_the_tables_the_specs_name_from_the_seed():
    for spec in V4.specs:
        for c in (c for c in spec.checks if c.kind in TABLE_KINDS):
            data = json.loads(c.table_file().read_text())
            assert data["generator"] == "gen/gen_v4.py" and data["seed"] == 2026 and data["rows"]
            assert (V4.folder / data["generator"]).is_file()


def _patched(spec_id: str, tmp_path: Path, old: str, new: str) -> Path:
    spec = V4.spec(spec_id)
    ws = materialize(V4, spec, tmp_path / spec_id)
    cli = ws / spec.app_slug / "cli.py"
    src = cli.read_text()
    assert src.count(old) == 1
    cli.write_text(src.replace(old, new))
    return ws


VALUE_LINE = 'print(f"Total value: {_fmt_price(store.total_value())}")'
HEDGE = ('print(f"Total value: {_fmt_price(int(store.total_value() * 100) / 100)} '
         '{_fmt_price(store.total_value())}")')
HAYSTACK = 'print(" ".join(str(i) for i in range(1001)))'


@pytest.mark.slow
def test_the_hedge_passes_bench_v3_and_fails_bench_v4(cfg, tmp_path):
    """``value-truncates`` printing both candidates (``Total value: 2.09 2.10``) passed every bench-v3 row."""
    ws = _patched("crud", tmp_path, VALUE_LINE, HEDGE)
    assert failed_checks(V3, "crud", ["total_value", "golden_table"], ws, cfg) == {}
    failed = failed_checks(V4, "crud", ["total_value", "golden_table"], ws, cfg,
                           row_filter=row_ids("total-value", "value-float-trap"))  # a failing row fails its table
    assert set(failed) == {"total_value", "golden_table"}
    assert "holds the number(s) ['25.00', '25.00'], want only '25.00'" in failed["total_value"]
    assert "value-float-trap `--db {db} report value`" in failed["golden_table"]


@pytest.mark.slow
def test_the_haystack_passes_bench_v3s_value_check_and_fails_bench_v4(cfg, tmp_path):
    ws = _patched("crud", tmp_path, VALUE_LINE, HAYSTACK)
    assert failed_checks(V3, "crud", ["total_value"], ws, cfg) == {}
    assert "want only '25.00'" in failed_checks(V4, "crud", ["total_value"], ws, cfg)["total_value"]


# a correct app in another output style passing every bench-v4 row: tests/suites/test_bench_v5.py
# ``test_a_correct_app_in_another_output_style_passes_every_row_of_bench_v4_and_bench_v5`` (bench-v5's tables are
# bench-v4's plus rows, and the few bench-v4 rows bench-v5 changed are graded there on bench-v4's table)


# bench-v4's edge mutants of the new classes: each a bug bench-v3 lets pass (spec, v3 table check and v4 check, a
# row of the v4 check that kills it: that row failing fails the check)
NEW_CLASS_BUGS = {
    "bom-file-only": ("convert", "golden_table", "accept-to-json-bom-stdin"),  # input_form: a BOM kept from stdin
    "last-line-needs-newline": ("logs", "golden_table", "accept-summary-no-final-newline"),  # input_form: last line lost
    "done-recounts-next-id": ("extend", "old_behaviour", "sequence-06"),  # sequence: an id given out again
}


def test_every_new_edge_class_has_a_mutant_and_rows_in_each_spec_that_declares_it():
    from swarmgym.suitekit.coverage import coverage
    cov = coverage(V4, IDS)
    assert cov.problems == []
    for spec_id, edge in [("convert", "input_form"), ("logs", "input_form"), ("crud", "sequence"), ("txn", "sequence"),
                          ("money", "sequence"), ("extend", "sequence")]:
        spec = V4.spec(spec_id)
        assert [m.name for m in V4.mutants(spec) if m.edge == edge]
        assert sum(edge in r.get("edges", []) for r in table_rows(spec)) >= 24
    for mutant, (spec_id, check, row) in NEW_CLASS_BUGS.items():  # the row named to kill each samples its class
        [m] = [m for m in V4.mutants(V4.spec(spec_id)) if m.name == mutant]
        [c] = [c for c in V4.spec(spec_id).checks if c.name == check]
        [r] = [r for r in json.loads(c.table_file().read_text())["rows"] if r["id"] == row]
        assert m.edge in r["edges"], mutant


@pytest.mark.slow
@pytest.mark.parametrize("mutant", sorted(NEW_CLASS_BUGS))
def test_a_bug_of_each_new_edge_class_passes_bench_v3_and_fails_bench_v4(mutant, cfg, tmp_path):
    spec_id, check, row = NEW_CLASS_BUGS[mutant]
    [m] = [m for m in V4.mutants(V4.spec(spec_id)) if m.name == mutant]
    ws = materialize(V4, V4.spec(spec_id), tmp_path / mutant, m)
    assert failed_checks(V3, spec_id, [check], ws, cfg) == {}
    failed = failed_checks(V4, spec_id, [check], ws, cfg, row_filter=row_ids(row))
    assert list(failed) == [check] and f"1/1 golden rows differ: {row} `" in failed[check]


@pytest.mark.slow
def test_a_stdlib_shadow_that_exits_at_import_fools_bench_v3s_probe_but_not_bench_v4s(cfg, tmp_path):
    """A workspace ``ast.py`` that exits 0 at import passed bench-v3's ``stdlib_only`` for an app importing a
    third-party module: bench-v4's scripts put the standard library before the workspace (``python3 -I``)."""
    ws = materialize(V4, V4.spec("crud"), tmp_path / "crud")
    cli = ws / "invtrack" / "cli.py"
    cli.write_text("import requests  # not the standard library\n" + cli.read_text())
    (ws / "ast.py").write_text("import sys\nsys.exit(0)\n")
    assert failed_checks(V3, "crud", ["stdlib_only"], ws, cfg) == {}
    assert list(failed_checks(V4, "crud", ["stdlib_only"], ws, cfg)) == ["stdlib_only"]


def test_bench_v4_is_frozen_as_verified():
    assert (V4.root / "suite.lock").read_text().strip() == V4.hash  # the hash `suite freeze` verified
