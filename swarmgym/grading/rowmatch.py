"""Exact, typed row matching (the ``rows`` check kind, bench-v4): a step's outcome against its frozen values.

The box only runs a row's inputs (:mod:`swarmgym.grading.difftable_driver`); this module decides outside
it, and — unlike the lenient golden-table comparison of bench-v2/v3 (:mod:`swarmgym.grading.difftable_compare`)
— it matches exactly, by the type a step names:

- ``exact``: the whole stdout, byte for byte (final newline, nothing vs an empty line, ``\\r``);
- ``json``: stdout is one JSON document equal to the value (an integer stays an integer);
- ``value``: the golden number is *the* value the step prints: the only number in stdout, spelled
  exactly (``25.00``); a second candidate (``2.09 2.10``) or a haystack of numbers fails;
- ``lines``: these lines, exactly, each once, in this order, among what stdout prints (a free-form
  table whose other lines the prompt leaves open);
- ``order``: these tokens, each on exactly one line, in this order (a free-form table's rows);
- ``words``: each of these words appears as a whole word (``--help`` naming its commands);
- ``any``: stdout is not compared (the prompt leaves it open).

An **error step** (``err`` set) asks for exactly one line on stderr starting with ``err``, nothing on
stdout (unless ``err_stdout_open``: a script whose earlier statements print before the failing one, in
an order the prompt leaves open), its exit status, and no traceback (``err_lines_open``: the step's own
arguments hold a line break, which a message repeating them carries, so only the first line's start is
asked); that the data is unchanged is the next step's business (a
fresh read).  Written files are compared exactly too (``text`` byte for byte; ``csv`` / ``json`` as data;
``exists`` / ``absent`` only whether the step left one).  A step may run from another folder (``cwd``,
e.g. ``{dir}``; the app still imported from the workspace).
A step may carry ``budget_s``, CPU seconds (the ``largest`` rows): a step that used more fails even when
its output is right.  The budget is :func:`budget_for` the reference's CPU at freeze time — ``BUDGET_FACTOR``
times it, never under ``BUDGET_FLOOR_S`` — and CPU, not wall time, so a loaded machine does not fail a
correct app; the driver counts the app's own work alike on the fast path and as a real subprocess (its
start-up left out; :mod:`swarmgym.grading.difftable_driver`).
A problem says which step, what was expected and what came out.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any

from swarmgym.collect import jsonbound
from swarmgym.grading import difftable_compare
from swarmgym.grading.difftable_compare import file_problem, printed_traceback, same_json

BUDGET_FACTOR = 100  # a correct answer 100x slower than the reference's fails the row (issue #30)
BUDGET_FLOOR_S = 1.0  # never less: an app's own imports and start-up work cost tens of ms the reference may not spend
OUT_MODES = ("exact", "json", "value", "lines", "order", "words", "any")
NUMBER = re.compile(r"[-+]?(?:\d+(?:[.,]\d+)*|[.,]\d+)")  # any digit run (Unicode digits too), with its sign


def budget_for(reference_cpu: float) -> float:
    """A step's CPU budget from the reference's CPU seconds: ``BUDGET_FACTOR`` times it, at least
    ``BUDGET_FLOOR_S``, rounded up to a tenth of a second."""
    return math.ceil(max(BUDGET_FACTOR * reference_cpu, BUDGET_FLOOR_S) * 10 - 1e-9) / 10


def numbers(text: str) -> list[str]:
    """Every number-looking token of ``text`` (a run of digits with its sign and inner separators)."""
    return NUMBER.findall(text)


def _short(text: str, n: int = 300) -> str:
    return repr(text if len(text) <= n else text[:n] + "…")


def _lines_in_order(want: list[str], got: list[str]) -> bool:
    if any(got.count(w) != 1 for w in want):
        return False
    return [ln for ln in got if ln in want] == list(want)


def _order(want: list[str], got: list[str]) -> bool:
    def has(w: str, ln: str) -> bool:
        return re.search(r"(?<!\S)" + re.escape(w) + r"(?!\S)", ln) is not None

    hits = [[w for w in want if has(w, ln)] for ln in got]
    return all(sum(w in h for h in hits) == 1 for w in want) and [w for h in hits for w in h] == list(want)


def stdout_problem(mode: str, want: Any, out: str) -> str | None:
    """Why ``out`` is not ``want`` under ``mode``, or None."""
    if mode == "any":
        return None
    if mode == "exact":
        return None if out == want else f"stdout {_short(out)}, want exactly {_short(str(want))}"
    if mode == "json":
        try:
            ok = same_json(want, jsonbound.loads(out))
        except ValueError:
            ok = False
        return None if ok else f"stdout {_short(out)}, want the JSON document {_short(json.dumps(want, ensure_ascii=False))}"
    if mode == "value":
        got = numbers(out)
        return None if got == [want] else f"stdout {_short(out)} holds the number(s) {got[:6]}, want only {want!r}"
    if mode == "lines":
        return None if _lines_in_order(list(want), out.split("\n")) else \
            f"stdout {_short(out)}, want the lines {list(want)!r} once each, in this order"
    if mode == "order":
        return None if _order(list(want), out.split("\n")) else \
            f"stdout {_short(out)}, want {list(want)!r} each on one line, in this order"
    if mode == "words":
        lacking = [w for w in want if re.search(r"(?<!\w)" + re.escape(w) + r"(?!\w)", out) is None]
        return f"stdout {_short(out)} lacks the word(s) {lacking}" if lacking else None
    raise ValueError("unknown out mode " + repr(mode))


def _text_problem(path: str, got: dict[str, Any], want: dict[str, Any]) -> str | None:
    if want.get("exists"):  # written, in a form the prompt leaves open
        return f"file {path}: No such file or directory" if got.get("missing") else None
    if "text" in want and not got.get("missing") and "error" not in got and got.get("text") != want["text"]:
        return f"file {path} holds {_short(str(got.get('text')), 200)}, want exactly {_short(want['text'], 200)}"
    return file_problem(path, got, want)


def step_problem(step: dict[str, Any], got: dict[str, Any], timeout: float) -> str | None:
    """Why one step's outcome differs from its frozen values, or None."""
    if got.get("timeout"):
        return f"timed out after {timeout:g} s"
    code, out, err = got.get("code"), str(got.get("out", "")), str(got.get("err", ""))
    if printed_traceback(got):
        return "printed a Python traceback"
    if step["exit"] == "nonzero":
        if code in (0, None):
            return f"exit {code}, want a non-zero exit"
    elif code != step["exit"]:
        return f"exit {code}, want {step['exit']}" + (f" (stderr {_short(err, 160)})" if err else "")
    prefix = step.get("err")
    if prefix is not None:
        if out and not step.get("err_stdout_open"):
            return f"stdout {_short(out, 160)} on an error, want nothing on stdout"
        body = err[:-1] if err.endswith("\n") else err
        if not body.startswith(prefix) or (("\n" in body or "\r" in body) and not step.get("err_lines_open")):
            return f"stderr {_short(err, 200)}, want one line starting with {prefix!r}"
    mode = step.get("out", "any")
    if got.get("out_cut") and mode != "any":
        return f"stdout larger than the {len(out.encode()) // 1024} KB the check keeps"
    if problem := stdout_problem(mode, step.get("stdout"), out):
        return problem
    for path, want in (step.get("files") or {}).items():
        if problem := _text_problem(path, (got.get("files") or {}).get(path) or {"missing": True}, want):
            return problem
    return _budget_problem(step.get("budget_s"), got.get("cpu"))


def _budget_problem(budget: float | None, cpu: float | None) -> str | None:
    if budget is None or cpu is None or cpu <= budget:
        return None
    return (f"took {cpu:.1f} s of CPU, budget {budget:g} s ({BUDGET_FACTOR}x the reference's, "
            f"at least {BUDGET_FLOOR_S:g} s)")


def row_problem(row: dict[str, Any], got: dict[str, Any] | None, timeout: float) -> dict[str, Any] | None:
    """``{"step", "argv", "problem"}`` for the first step of ``row`` that differs (typed matching), or None."""
    return difftable_compare.row_problem(row, got, timeout, judge=step_problem)
