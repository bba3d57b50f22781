"""Differential checks: a frozen table of inputs and golden outputs, run against the built app.

The table (JSON in the suite folder, written once by the suite's seeded generator from the
reference app, reviewed, frozen — its digest is part of the suite hash) never enters the app's box:
the box gets each row's *inputs* only (argv with ``{db}`` / ``{dir}``, stdin, input files, the paths
of the files to read back) and :mod:`swarmgym.grading.difftable_driver` runs them — in processes forked
from a driver that holds no expected value, a fresh one after any step that ends, hangs or dirties
its process — and returns what came out; the harness compares it
(:mod:`swarmgym.grading.difftable_compare`).  Rows that disagree are run again in a second box as real
``python3 -m MODULE`` subprocesses, and only what that run shows is reported, so the fast path can
speed a check up but never fail an app that a plain ``python3 -m`` passes.  The check's detail names
each failing input and what came out.

Each box has the check's timeout; the driver stops running steps ``DEADLINE_MARGIN`` seconds before it
(counted from when the box was asked for, so a box slow to start has less) and prints what it has, so
one row that hangs never costs the others their results.  Rows of a confirmation the deadline cut
short are confirmed in a further box (one box that finishes no row ends it: those rows fail with the
box's reason).

A grading with several tables of one app runs their fast paths in one box (:func:`together`: one box and
one driver start-up, not one per table), and confirms each table's disagreements on its own.  A table
that run cannot stand for (the box timed out or hit a cap, or the deadline cut its rows) runs alone, as
before, so one table's hang never costs another its verdict.
"""
from __future__ import annotations

import base64
import functools
import importlib.util
import json
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from swarmgym.collect import jsonbound
from swarmgym.core.errors import SuiteError
from swarmgym.grading.difftable_compare import row_problem

DRIVER = Path(__file__).with_name("difftable_driver.py")
EOF_MARK = "SWARMGYM_DIFFTABLE_EOF"
MARK = "SWARMGYM-DIFF "
MAX_SHOWN = 5
PACK_OVER = 120 * 1024  # bytes of a command sent as it is (the kernel's cap on one argv string: 128 KB)
CONFIRM_CAP = 8  # disagreeing rows confirmed in the first batch; the rest only if none of those fails
#                  (a caller that needs only pass or fail confirms one at a time: ``first_failure``)
STEP_TIMEOUT = 10.0  # seconds per step on the fast path (config checks.step_timeout)
CONFIRM_TIMEOUT = 30.0  # seconds per step as a real subprocess (config checks.confirm_timeout)
DEADLINE_MARGIN = 5.0  # seconds of a box's timeout left for the driver to stop its step and print what it has
RowProblem = Callable[[dict[str, Any], dict[str, Any] | None, float], dict[str, Any] | None]  # why a row differs, or None
RESULT_CAP = 8 << 20  # bytes of the driver's stdout read back (each stream is capped in the box)
STEPS_PER_FORK = 32  # rows share a forked process up to this many steps, a prefix rows share counted once
#                      (1: a fork per row, nothing shared);
#                      a fork per row is ~2x slower than the old in-process table on one-step rows
#                      (benchmarks/checks.py), 32 is faster than it on every bench-v2 table


def load_table(path: Path, module: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except OSError as e:
        raise SuiteError(f"{path}: cannot read golden table ({e.strerror})") from None
    except ValueError as e:
        raise SuiteError(f"{path}: golden table is not valid JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise SuiteError(f"{path}: golden table needs a 'rows' list")
    return {"module": module, "rows": data["rows"]}


def box_inputs(table: dict[str, Any], rows: Sequence[int], mode: str = "fork", *, step_timeout: float = STEP_TIMEOUT,
               deadline_s: float = 600.0, whole_box: bool = False, steps_per_fork: int = STEPS_PER_FORK,
               deadline_at: float | None = None, share: bool = True) -> dict[str, Any]:
    """What the box gets for ``rows`` (indices) of ``table``: inputs only, never a golden value (nor a CPU
    budget: only ``cpu_baseline``, when a row has one, so a real subprocess's start-up is not counted).
    ``deadline_at``: when the driver stops, on this host's monotonic clock (the box shares it); ``share``: on the
    fast path, rows that begin alike run their common steps once (benchmarks/prefixes.py turns it off)."""
    picked = []
    for n in rows:
        row = table["rows"][n]
        picked.append({"n": n, "files_in": row.get("files_in") or {},
                       "steps": [{"argv": st["argv"], "stdin": st.get("stdin"), "read": sorted(st.get("files") or {}),
                                  **({"cwd": st["cwd"]} if st.get("cwd") else {})} for st in row["steps"]]})
    budgeted = any(st.get("budget_s") is not None for n in rows for st in table["rows"][n]["steps"])
    return {"module": table["module"], "mode": mode, "rows": picked, "step_timeout": step_timeout,
            "deadline_s": deadline_s, "deadline_at": deadline_at, "whole_box": whole_box,
            "steps_per_fork": steps_per_fork, "share": share, **({"cpu_baseline": True} if budgeted else {})}


@functools.cache
def driver_module() -> Any:
    """The driver as a module of this process, loaded once (stdlib only; it runs nothing at import): its plan — which steps the
    fast path runs for a table (``batches``, ``prefixes``) — for benchmarks and tests."""
    spec = importlib.util.spec_from_file_location("difftable_driver", DRIVER)
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


@functools.cache
def _driver_source() -> str:
    """The driver's source, read once per process (every row check sends it)."""
    return DRIVER.read_text()


def command(inputs: dict[str, Any]) -> str:
    """The bash command that runs the driver on ``inputs`` (source and inputs on stdin, ``python3 -P``:
    the workspace is not on the driver's own import path).  The command is one argv string (``bash -c``),
    which the kernel caps at 128 KB: a command that would pass ``PACK_OVER`` bytes (a ``largest`` row's
    4,000-line log) carries its inputs zlib-compressed, base64-encoded; any other is sent as before."""
    driver = _driver_source()
    text = json.dumps(inputs)
    tail = f"\nINPUTS = {text!r}\nsys.exit(main(json.loads(INPUTS)))\n"
    if len(driver.encode()) + len(tail.encode()) > PACK_OVER:
        packed = base64.b64encode(zlib.compress(text.encode(), 9)).decode()
        tail = f"\nINPUTS = {packed!r}\nsys.exit(main(unpack(INPUTS)))\n"
    src = driver + tail
    if EOF_MARK in src:
        raise SuiteError(f"golden table may not contain {EOF_MARK}")
    return f"exec python3 -P - <<'{EOF_MARK}'\n{src}\n{EOF_MARK}\n"


def parse(stdout: str) -> dict[int, dict[str, Any]] | None:
    """The driver's results by row index, or None if it printed none (it died)."""
    found = [ln for ln in stdout.splitlines() if ln.startswith(MARK)]
    try:
        rows = jsonbound.loads(found[-1][len(MARK):])["rows"]
        return {int(r["n"]): r for r in rows}
    except (IndexError, ValueError, KeyError, TypeError):
        return None


@dataclass
class Graded:
    """A table's verdict: the summary (the shape ``summarize`` reads) and the first box's result."""

    summary: dict[str, Any] | None
    box: Any  # the fast path's SandboxResult (exit code, tails, duration, memory cap)


@dataclass
class FastPath:
    """What a table's fast path gave: the box's result and the driver's outcomes by row index."""

    box: Any  # a SandboxResult
    got: dict[int, dict[str, Any]]


def together(tables: Sequence[dict[str, Any]], run_box: Callable[[str], Any], *, timeout: float, whole_box: bool,
             step_timeout: float = STEP_TIMEOUT, steps_per_fork: int = STEPS_PER_FORK) -> list[FastPath | None]:
    """The fast path of several tables of one module in one box (one driver's start-up and one box, not one
    per table): each table's :class:`FastPath`, or None for a table this run cannot stand for — every table,
    when the box did not end cleanly (timed out, hit its memory cap, no result), and a table whose rows the
    deadline cut (a table that hangs must not spend another's time): the caller runs those alone."""
    modules = {t["module"] for t in tables}
    if len(modules) != 1:
        raise ValueError(f"tables of one module only, got {sorted(modules)}")
    rows = [r for t in tables for r in t["rows"]]
    joined = {"module": modules.pop(), "rows": rows}
    deadline = max(1.0, timeout - DEADLINE_MARGIN)
    res = run_box(command(box_inputs(joined, range(len(rows)), "fork", step_timeout=step_timeout,
                                     deadline_s=deadline, whole_box=whole_box, steps_per_fork=steps_per_fork,
                                     deadline_at=time.monotonic() + deadline)))
    got = parse(res.stdout_tail)
    if got is None or res.timed_out or res.exit_code != 0 or res.breach():
        return [None] * len(tables)
    out: list[FastPath | None] = []
    start = 0
    for t in tables:
        mine = {n - start: got.get(n) for n in range(start, start + len(t["rows"]))}
        start += len(t["rows"])
        whole = all(r is not None and not r.get("skipped") for r in mine.values())
        out.append(FastPath(res, {n: {**r, "n": n} for n, r in mine.items() if r is not None}) if whole else None)
    return out


def grade(table: dict[str, Any], run_box: Callable[[str], Any], *, timeout: float, whole_box: bool,
          step_timeout: float = STEP_TIMEOUT, confirm_timeout: float = CONFIRM_TIMEOUT,
          steps_per_fork: int = STEPS_PER_FORK, problem: RowProblem = row_problem,
          first_failure: bool = False, fast: FastPath | None = None) -> Graded:
    """Run ``table`` through ``run_box(command) -> SandboxResult`` (the check's box, called once for the
    fast path and again only for rows that disagree) and compare outside the box with ``problem`` (the
    lenient golden-table comparison; the ``rows`` kind passes its exact one, :mod:`swarmgym.grading.rowmatch`).
    ``first_failure``: the caller needs only whether the table passes (``suite verify``), so disagreeing rows
    are confirmed one at a time and the first that fails ends it (its detail names that row only).
    ``fast``: the table's fast path already run with others (:func:`together`); only disagreements are run."""
    rows = table["rows"]
    deadline = max(1.0, timeout - DEADLINE_MARGIN)

    def inputs(picked: Sequence[int], mode: str, step: float) -> dict[str, Any]:
        return box_inputs(table, picked, mode, step_timeout=step, deadline_s=deadline, whole_box=whole_box,
                          steps_per_fork=steps_per_fork, deadline_at=time.monotonic() + deadline)

    got: dict[int, dict[str, Any]] | None
    if fast is not None:
        first, got = replace(fast.box), fast.got
    else:
        first = run_box(command(inputs(range(len(rows)), "fork", step_timeout)))
        got = parse(first.stdout_tail)
    if got is None:
        return Graded(None, first)
    disagree = [n for n in range(len(rows)) if problem(rows[n], got.get(n), step_timeout)]
    failed: list[dict[str, Any]] = []
    cap = 1 if first_failure else CONFIRM_CAP
    batch, rest = disagree[:cap], disagree[cap:]
    while batch:
        again = run_box(command(inputs(batch, "subproc", confirm_timeout)))
        confirmed = parse(again.stdout_tail) or {}
        cut = [n for n in batch if (confirmed.get(n) or {"skipped": True}).get("skipped")]
        for n in batch:
            why = None if n in cut and len(cut) < len(batch) else problem(rows[n], confirmed.get(n), confirm_timeout)
            if why is not None and n in cut:
                why["problem"] += f" ({box_said(again)})"
            if why is not None:
                failed.append({"id": rows[n]["id"], "req": rows[n].get("req", []), **why})
        if cut and len(cut) < len(batch):  # the box ran out of time before these: a further box confirms them
            batch = cut
        else:
            batch, rest = ([], rest) if failed else (rest[:cap], rest[cap:])
    return Graded({"rows": len(rows), "failed": failed, "unconfirmed": len(rest)}, first)


def box_said(res: Any) -> str:
    """How a confirmation box ended, for rows it gave no result for (a SandboxResult)."""
    if res.timed_out:
        return f"its box was killed at the check's timeout after {res.duration_s:.0f} s"
    if res.oom_kills:
        return f"its box exceeded its memory cap ({res.ram_mb} MB)"
    return f"its box exited {res.exit_code} after {res.duration_s:.0f} s"


def summarize(summary: dict[str, Any] | None, exit_code: int | None = None) -> tuple[bool, str]:
    """(passed, one-line detail) from a :func:`grade` summary; no summary is a failure."""
    if summary is None:
        return False, f"driver gave no result (exit {exit_code}); the check's box was killed"
    rows, failed, unconfirmed = int(summary["rows"]), list(summary["failed"]), int(summary["unconfirmed"])
    if not failed:
        return True, f"{rows}/{rows} golden rows match"
    shown = "; ".join(f"{f['id']} `{' '.join(f['argv'])}`: {f['problem']}" for f in failed[:MAX_SHOWN])
    more = len(failed) - MAX_SHOWN + unconfirmed
    return False, (f"{len(failed) + unconfirmed}/{rows} golden rows differ: {shown}"
                   + (f" (+{more} more)" if more > 0 else ""))
