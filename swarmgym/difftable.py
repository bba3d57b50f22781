"""Differential checks: a frozen table of inputs and golden outputs, run against the built app.

The table (JSON in the suite folder, written once by the suite's seeded generator from the
reference app, reviewed, frozen — its digest is part of the suite hash) is run by
``difftable_driver.py`` in one ``python3`` process inside the ordinary check sandbox
(:func:`swarmgym.sandbox.run_sandboxed`); the driver re-runs only disagreeing rows as real
subprocesses before it reports them.  The check's detail names each failing input and what came out.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from swarmgym.errors import SuiteError

DRIVER = Path(__file__).with_name("difftable_driver.py")
EOF_MARK = "SWARMGYM_DIFFTABLE_EOF"
MAX_SHOWN = 5


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


def command(table: dict[str, Any], mode: str = "inproc") -> str:
    """The bash command that runs ``table`` through the driver (source and table on stdin).

    ``mode="subproc"`` makes every row real subprocesses (the slow baseline benchmarks/suite.py measures).
    """
    src = DRIVER.read_text() + f"\nTABLE = {json.dumps(table)!r}\nsys.exit(main(json.loads(TABLE), {mode!r}))\n"
    if EOF_MARK in src:
        raise SuiteError(f"golden table may not contain {EOF_MARK}")
    return f"python3 - <<'{EOF_MARK}'\n{src}\n{EOF_MARK}\n"


def summarize(exit_code: int | None, stdout: str) -> tuple[bool, str]:
    """(passed, one-line detail) from the driver's JSON line; anything else is a failure."""
    lines = [ln for ln in stdout.strip().splitlines() if ln.startswith("{")]
    try:
        res = json.loads(lines[-1])
        rows, failed, unconfirmed = int(res["rows"]), list(res["failed"]), int(res["unconfirmed"])
    except (IndexError, ValueError, KeyError, TypeError):
        return False, f"driver gave no result (exit {exit_code}); the app may have killed the process"
    if not failed:
        return True, f"{rows}/{rows} golden rows match"
    shown = "; ".join(f"{f['id']} `{' '.join(f['argv'])}`: {f['problem']}" for f in failed[:MAX_SHOWN])
    more = len(failed) - MAX_SHOWN + unconfirmed
    return False, (f"{len(failed) + unconfirmed}/{rows} golden rows differ: {shown}"
                   + (f" (+{more} more)" if more > 0 else ""))
