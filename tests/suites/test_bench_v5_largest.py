"""bench-v5's ``largest`` edge class: the largest and deepest inputs each prompt allows, every step within a CPU
budget of 100x the reference's (at least 1 s) — a slow-but-correct app that bench-v3 passes fails them, a
recursion that stops at a depth the prompt allows fails them, and the reference passes them in any output style."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from swarmgym import REPO_ROOT
from swarmgym.config import load_config
from swarmgym.suitekit.coverage import table_rows
from swarmgym.suitekit.suite import Check, load_suite, materialize
from tests.support.grading import check_result

V3 = load_suite("bench-v3", REPO_ROOT / "suites")
V5 = load_suite("bench-v5", REPO_ROOT / "suites")


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={}, overrides={"checks.timeout": 180})


def _largest_check(spec_id: str, table: str, folder: Path) -> Check:
    """A ``rows`` check over only the ``largest`` rows of one of the spec's frozen tables (fast to grade)."""
    rows = [r for r in json.loads((V5.folder / "tables" / f"{table}.json").read_text())["rows"]
            if "largest" in r.get("edges", [])]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "t.json").write_text(json.dumps({"rows": rows}))
    check = Check(name="largest", kind="rows", table="t.json", module=V5.spec(spec_id).app_slug)
    check._root = folder
    return check


def _mutant(spec_id: str, name: str, dest: Path) -> Path:
    spec = V5.spec(spec_id)
    [m] = [m for m in V5.mutants(spec) if m.name == name]
    return materialize(V5, spec, dest, m)


def test_every_spec_samples_largest_with_budgeted_rows_and_an_edge_mutant():
    for spec in V5.specs:
        rows = [r for r in table_rows(spec) if "largest" in r.get("edges", [])]
        assert rows, spec.id
        assert all(isinstance(st.get("budget_s"), float) and st["budget_s"] >= 1.0 for r in rows for st in r["steps"])
        assert not [st for r in table_rows(spec) if "largest" not in r.get("edges", []) for st in r["steps"]
                    if "budget_s" in st], spec.id  # only the largest rows carry a budget
        assert [m.name for m in V5.mutants(spec) if m.edge == "largest"], spec.id


@pytest.mark.slow
def test_a_quadratic_but_correct_app_passes_bench_v3_and_fails_bench_v4_on_its_cpu_budget(cfg, tmp_path):
    """todokit upgrading a current-version file one task at a time, saving the whole file after each: every
    answer right (bench-v3 passes it), 800 tasks far past 100x the reference's CPU."""
    ws = _mutant("extend", "upgrade-saves-per-task", tmp_path / "slow")
    v3 = [c for c in V3.spec("extend").checks if c.name == "golden_table"]
    assert check_result(v3[0], ws, cfg).passed
    res = check_result(_largest_check("extend", "todokit", tmp_path / "t"), ws, cfg)
    assert not res.passed
    assert "largest-todokit-800-old-tasks `--file {dir}/todo.json done 3`: took " in res.detail
    assert "s of CPU, budget 1." in res.detail and "(100x the reference's, at least 1 s)" in res.detail


@pytest.mark.slow
def test_a_recursion_that_stops_at_a_depth_the_prompt_allows_fails_bench_v4(cfg, tmp_path):
    """txkvbench looking a key up recursively through its open transactions: 1,200 nested ones overflow."""
    ws = _mutant("txn", "get-recursive-layers", tmp_path / "deep")
    res = check_result(_largest_check("txn", "txkvbench", tmp_path / "t"), ws, cfg)
    assert not res.passed and "largest-txkvbench-nested-1200" in res.detail and "traceback" in res.detail


@pytest.mark.slow
@pytest.mark.parametrize("spec_id, table", [("extend", "todokit"), ("logs", "logstat"), ("txn", "txkvbench")])
def test_the_reference_passes_its_largest_rows_printing_through_sys_stdout_buffer(spec_id, table, cfg, tmp_path):
    spec = V5.spec(spec_id)
    ws = tmp_path / "ref"
    shutil.copytree(V5.reference_dir(spec), ws)
    main = ws / spec.app_slug / "__main__.py"
    main.write_text('import builtins, sys\n_print = builtins.print\n\n\ndef _buffer_print(*args, sep=" ", end="\\n", '
                    'file=None, flush=False):\n    if file not in (None, sys.stdout):\n        return _print(*args, '
                    'sep=sep, end=end, file=file, flush=flush)\n    sys.stdout.flush()\n    sys.stdout.buffer.write('
                    '(sep.join(map(str, args)) + end).encode("utf-8"))\n    sys.stdout.buffer.flush()\n\n\n'
                    'builtins.print = _buffer_print\n' + main.read_text())
    res = check_result(_largest_check(spec_id, table, tmp_path / "t"), ws, cfg)
    assert res.passed, res.detail
