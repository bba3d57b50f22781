"""Golden-row comparison: what a step printed and wrote against its golden values, outside the box.

The box (:mod:`swarmgym.grading.difftable_driver`) only runs a row's inputs and returns what came out; the
expected values never leave the harness.  A step's golden values: ``exit`` (a number, or
``"nonzero"``), ``out`` (how stdout is compared: ``exact``, ``json``, ``number2``, ``order``,
``any``) with ``stdout``, ``err`` (a one-line stderr prefix), ``files`` (``{PATH: {"csv": [[...]]} |
{"text": T} | {"json": D} | {"absent": true}}``).  Anywhere, a Python traceback fails the step.
"""
from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from typing import Any

from swarmgym.collect import jsonbound

TRACEBACK = "Traceback (most recent call last)"


def lines(text: str) -> list[str]:
    out = [ln.rstrip() for ln in text.replace("\r\n", "\n").split("\n")]
    while out and not out[-1]:
        out.pop()
    return out


def same_json(want: Any, got: Any) -> bool:
    if isinstance(want, bool) or isinstance(got, bool):
        return want is got
    if isinstance(want, int):
        return isinstance(got, int) and got == want
    if isinstance(want, float):
        return isinstance(got, (int, float)) and abs(got - want) < 1e-9
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(same_json, want, got))
    if isinstance(want, dict):
        return isinstance(got, dict) and set(got) == set(want) and all(same_json(want[k], got[k]) for k in want)
    return bool(want == got)


def _token(w: str) -> str:
    return r"(?<!\S)" + re.escape(w) + r"(?!\S)"


def stdout_ok(mode: str, want: Any, text: str) -> bool:
    if mode == "any":
        return True
    if mode == "exact":
        return lines(text) == lines(want)
    if mode == "json":
        try:
            return same_json(want, jsonbound.loads(text))
        except ValueError:
            return False
    if mode == "number2":  # the golden two-decimal number appears as a whole token
        return re.search(r"(?<![\d.])" + re.escape(want) + r"(?![\d])", text) is not None
    if mode == "order":  # these tokens appear, each on its own line, in this order (a free-form table)
        rows = [ln for ln in lines(text) if any(re.search(_token(w), ln) for w in want)]
        return [w for ln in rows for w in want if re.search(_token(w), ln)] == list(want)
    raise ValueError("unknown out mode " + repr(mode))


def file_problem(path: str, got: dict[str, Any], want: dict[str, Any]) -> str | None:
    """Why the file the box read back (``{"text"} | {"missing"} | {"error"}``) is not ``want``, or None."""
    if want.get("absent"):
        return f"file {path} should not exist" if not got.get("missing") else None
    if got.get("missing"):
        return f"file {path}: No such file or directory"
    if "error" in got:
        return f"file {path}: {got['error']}"
    text = str(got.get("text", ""))
    if "csv" in want:
        rows = list(csv.reader(io.StringIO(text)))
        return None if rows == want["csv"] else f"file {path} holds {rows[:4]!r}, want {want['csv'][:4]!r}"
    if "json" in want:
        try:
            ok = same_json(want["json"], jsonbound.loads(text))
        except ValueError:
            ok = False
        return None if ok else f"file {path} holds {text[:200]!r}, want JSON {json.dumps(want['json'])[:200]}"
    if lines(text) != lines(want["text"]):
        return f"file {path} holds {text[:200]!r}, want {want['text'][:200]!r}"
    return None


def printed_traceback(got: dict[str, Any]) -> bool:
    """Whether a step's outcome shows a Python traceback: in what was kept of its output, or (a traceback
    longer than the stderr tail kept) where the driver saw its first line."""
    return TRACEBACK in str(got.get("out", "")) + str(got.get("err", "")) or bool(got.get("err_traceback"))


def step_problem(step: dict[str, Any], got: dict[str, Any], timeout: float) -> str | None:
    """Why one step's outcome differs from its golden values, or None."""
    if got.get("timeout"):
        return f"timed out after {timeout:g} s"
    code, out, err = got.get("code"), str(got.get("out", "")), str(got.get("err", ""))
    if printed_traceback(got):
        return "printed a Python traceback"
    if step["exit"] == "nonzero":  # a usage error the prompt leaves the form of: any failure, no traceback
        if code in (0, None):
            return f"exit {code}, want a non-zero exit"
    elif code != step["exit"]:
        return f"exit {code}, want {step['exit']}"
    prefix = step.get("err")
    if prefix is not None:
        errs = [ln for ln in lines(err) if ln.strip()]
        if len(errs) != 1 or not errs[0].startswith(prefix):
            return f"stderr should be one line starting with {prefix!r}, got {err[-200:]!r}"
    mode = step.get("out", "any")
    if got.get("out_cut") and mode != "any":
        return f"stdout larger than the {len(out.encode()) // 1024} KB the check keeps"
    if not stdout_ok(mode, step.get("stdout"), out):
        return f"stdout {out[-300:]!r}, want {step.get('stdout')!r} ({step.get('out')})"
    for path, want in (step.get("files") or {}).items():
        problem = file_problem(path, (got.get("files") or {}).get(path) or {"missing": True}, want)
        if problem:
            return problem
    return None


StepProblem = Callable[[dict[str, Any], dict[str, Any], float], "str | None"]


def row_problem(row: dict[str, Any], got: dict[str, Any] | None, timeout: float,
                judge: StepProblem | None = None) -> dict[str, Any] | None:
    """``{"step", "argv", "problem"}`` for the first step of ``row`` that differs, or None.

    ``judge`` decides one step (bench-v3's loose :func:`step_problem` unless given; the ``rows`` kind passes
    :func:`swarmgym.grading.rowmatch.step_problem`)."""
    judge = judge or step_problem
    if got is None:
        return {"step": 0, "argv": row["steps"][0]["argv"], "problem": "the driver returned no result for it"}
    if got.get("skipped"):
        return {"step": 0, "argv": row["steps"][0]["argv"], "problem": "not run: the check ran out of time"}
    outcomes = got.get("steps") or []
    for n, step in enumerate(row["steps"]):
        problem = judge(step, outcomes[n], timeout) if n < len(outcomes) else "no result for this step"
        if problem:
            return {"step": n, "argv": step["argv"], "problem": problem}
    return None
