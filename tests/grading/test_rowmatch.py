"""The ``rows`` kind's exact, typed matching (bench-v4): whole stdout byte for byte, a JSON document, *the*
value with any second candidate failing, error rows with nothing on stdout and one ``error:`` line, and a
failure that names its row, what was expected and what came out."""
from __future__ import annotations

import json
import textwrap

import pytest

from swarmgym.config import load_config
from swarmgym.grading.rowmatch import budget_for, row_problem, step_problem
from swarmgym.suitekit.suite import Check
from tests.support.grading import check_result
from tests.support.hostile import require_bwrap


def got(out="", err="", code=0, **kw):
    return {"code": code, "out": out, "err": err, **kw}


def st(out="exact", stdout=None, exit=0, **kw):
    return {"argv": ["x"], "exit": exit, "out": out, "stdout": stdout, **kw}


@pytest.mark.parametrize("printed, passes", [
    ("14\n", True), ("14", False), ("14\n\n", False), ("14 \n", False), ("14\r\n", False), ("\ufeff14\n", False)])
def test_exact_is_the_whole_stdout_byte_for_byte(printed, passes):
    assert (step_problem(st(stdout="14\n"), got(printed), 10) is None) is passes


def test_nothing_and_an_empty_line_are_different_outputs():
    assert step_problem(st(stdout=""), got("\n"), 10) is not None
    assert step_problem(st(stdout="\n"), got(""), 10) is not None
    assert step_problem(st(stdout=""), got(""), 10) is None


@pytest.mark.parametrize("printed, passes", [
    ("Total value: 2.10\n", True), ("2.10\n", True), ("Total: 2.10", True),
    ("Total value: 2.09 2.10\n", False),                      # the hedge: two candidates
    ("\n".join(str(i) for i in range(1001)) + "\n2.10\n", False),  # the haystack
    ("Total value: 2.1\n", False), ("Total value: 02.10\n", False), ("Total value: ٢.١٠\n", False)])
def test_a_value_is_the_only_number_printed_spelled_exactly(printed, passes):
    assert (step_problem(st("value", "2.10"), got(printed), 10) is None) is passes


def test_json_is_one_document_with_integers_kept():
    want = [{"sku": "A1", "qty": 10, "price": 2.0}]
    assert step_problem(st("json", want), got('[{"sku": "A1", "qty": 10, "price": 2}]\n'), 10) is None
    assert step_problem(st("json", want), got('[{"sku": "A1", "qty": 10.0, "price": 2}]'), 10) is not None
    assert step_problem(st("json", want), got('items:\n[{"sku": "A1", "qty": 10, "price": 2}]'), 10) is not None


def test_lines_and_order_ask_each_wanted_line_once_in_order():
    assert step_problem(st("lines", ["A2 Nut 5"]), got("SKU NAME QTY\nA2 Nut 5\n"), 10) is None
    assert step_problem(st("lines", ["A2 Nut 5"]), got("A2 Nut 5\nA2 Nut 5\n"), 10) is not None
    assert step_problem(st("order", ["A1", "B2"]), got("sku\nA1 x\nB2 y\n"), 10) is None
    assert step_problem(st("order", ["A1", "B2"]), got("A1 B2\nB2 A1\n"), 10) is not None


@pytest.mark.parametrize("out, err, code, passes", [
    ("", "error: unknown SKU\n", 1, True),
    ("", "error: unknown SKU", 1, True),
    ("oops\n", "error: unknown SKU\n", 1, False),             # something on stdout
    ("", "error: unknown SKU\nerror: again\n", 1, False),     # two lines
    ("", "Error: unknown SKU\n", 1, False),
    ("", "error: unknown SKU\n", 2, False),
    ("", "Traceback (most recent call last):\nerror: x\n", 1, False)])
def test_an_error_row_is_one_error_line_nothing_on_stdout_its_exit(out, err, code, passes):
    step = st("any", exit=1, err="error:")
    assert (step_problem(step, got(out, err, code), 10) is None) is passes


def test_words_are_whole_words():
    assert step_problem(st("words", ["item", "stock"]), got("usage: {item,stock,report}\n"), 10) is None
    assert "['stock']" in step_problem(st("words", ["item", "stock"]), got("usage: item stocks\n"), 10)


def test_written_text_files_compare_byte_for_byte():
    step = st("any", files={"{dir}/o.txt": {"text": "a\n"}})
    assert step_problem(step, got(files={"{dir}/o.txt": {"text": "a\n"}}), 10) is None
    assert "o.txt" in step_problem(step, got(files={"{dir}/o.txt": {"text": "a\r\n"}}), 10)


def test_a_failing_row_says_its_step_what_was_wanted_and_what_came_out():
    row = {"id": "r", "steps": [st(stdout="1\n"), st(stdout="25.00\n")]}
    why = row_problem(row, {"steps": [got("1\n"), got("25\n")]}, 10)
    assert why == {"step": 1, "argv": ["x"], "problem": "stdout '25\\n', want exactly '25.00\\n'"}


TOY = textwrap.dedent('''
    import os, sys
    cmd = sys.argv[1]
    if cmd == "buffer":
        sys.stdout.buffer.write("Total value: 25.00\\n".encode())
    elif cmd == "write":
        sys.stdout.write("Total value: 25.00\\n")
    elif cmd == "exit":
        print("Total value: 25.00", flush=True)
        os._exit(0)
    elif cmd == "hedge":
        print("Total value: 24.99 25.00")
    elif cmd == "here":
        open("made.txt", "w").write("x")
        print(os.path.basename(os.getcwd()))
    elif cmd == "fail":
        print("error: no such item", file=sys.stderr)
        sys.exit(1)
''')


def test_the_rows_kind_passes_every_output_style_and_fails_a_hedge_through_grade(tmp_path):
    require_bwrap()
    ws = tmp_path / "ws"
    (ws / "toy").mkdir(parents=True)
    (ws / "toy" / "__init__.py").write_text("")
    (ws / "toy" / "__main__.py").write_text(TOY)
    rows = [{"id": style, "req": [], "steps": [st("value", "25.00") | {"argv": [style]}]}
            for style in ("buffer", "write", "exit")]
    rows.append({"id": "error", "req": [], "steps": [st("any", exit=1, err="error:") | {"argv": ["fail"]}]})
    rows.append({"id": "cwd", "req": [], "steps": [st("any", files={"{dir}/made.txt": {"exists": True}})
                                                   | {"argv": ["here"], "cwd": "{dir}"}]})
    suite = tmp_path / "suite"
    suite.mkdir()
    check = Check(name="rows", kind="rows", table="t.json", module="toy")
    check._root = suite
    cfg = load_config(tmp_path, environ={}, overrides={"sandbox.backend": "bwrap"})
    (suite / "t.json").write_text(json.dumps({"rows": rows}))
    res = check_result(check, ws, cfg)
    assert res.passed, res.detail
    rows.append({"id": "hedge", "req": [], "steps": [st("value", "25.00") | {"argv": ["hedge"]}]})
    (suite / "t.json").write_text(json.dumps({"rows": rows}))
    res = check_result(check, ws, cfg)
    assert not res.passed
    assert res.detail.startswith("1/6 golden rows differ: hedge `hedge`: stdout 'Total value: 24.99 25.00\\n' holds")


def test_a_step_over_its_cpu_budget_fails_with_what_it_took_under_it_passes():
    """The ``largest`` rows: a right answer 100x slower than the reference's fails the row."""
    slow = step_problem(st(stdout="14\n", budget_s=0.9), got("14\n", cpu=3.2), 10)
    assert slow == "took 3.2 s of CPU, budget 0.9 s (100x the reference's, at least 1 s)"
    assert step_problem(st(stdout="14\n", budget_s=0.9), got("14\n", cpu=0.85), 10) is None
    assert step_problem(st(stdout="15\n", budget_s=0.9), got("14\n", cpu=3.2), 10).startswith("stdout '14\\n'")


def test_a_step_without_a_budget_is_judged_as_before_whatever_its_cpu():
    assert step_problem(st(stdout="14\n"), got("14\n", cpu=500.0), 10) is None
    assert step_problem(st(stdout="14\n", budget_s=1.0), got("14\n"), 10) is None  # an old driver: no cpu


def test_a_budget_is_100x_the_references_cpu_never_under_a_second():
    assert budget_for(0.004) == 1.0
    assert budget_for(0.0123) == 1.3
    assert budget_for(0.25) == 25.0
