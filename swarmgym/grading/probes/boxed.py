"""Run-time probes (``imports``, ``api``, ``sql_owner``, ``file_owner``, ``pytest``): the app runs in the check box, the verdict is
decided here.

The box gets the driver (:mod:`swarmgym.grading.probes.driver`) and the probe's inputs — call arguments,
argv, pytest arguments — never a ``want``, an ``owner`` or a count.  What comes back is facts (exit codes,
typed return values, which app file ran which SQL statement or touched the data file, pytest's own counts), read from the last
``MARK`` line the driver appends after every app process is dead.  :class:`ProbeInfraError` is the probe's
own failure (the box did not start, the driver crashed, an app process never reached the app): an
infrastructure error, never the app's.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swarmgym.core.errors import CheckInfraError
from swarmgym.grading.context import GradingContext
from swarmgym.suitekit.probes import Probe
from swarmgym.suitekit.suite import Check

DRIVER = Path(__file__).with_name("driver.py")
MARK = "SWARMGYM-PROBE "
EOF_MARK = "SWARMGYM_PROBE_EOF"
RESULT_CAP = 8 << 20  # bytes of the box's stdout read back
MARGIN_S = 3.0  # seconds of the check's timeout kept for the driver's own start and end
FLOODED = 3  # the driver's exit when its result line could not be written


class ProbeInfraError(CheckInfraError):
    """The probe itself could not run (not the app's failure)."""


@dataclass
class Ran:
    """What the driver reported: every app process it started (``code``, ``timed_out``, ``out``, ``err``,
    ``facts``), the owner probes' runs (each forked from one such process: the same keys) and the probe-wide
    facts (``db``)."""

    apps: list[dict[str, Any]]
    facts: dict[str, Any]
    failure: str | None = None  # set when the box ended without the driver's result, by the app's doing
    runs: list[dict[str, Any]] = field(default_factory=list)


def inputs(probe: Probe, deadline_s: float, whole_box: bool) -> dict[str, Any]:
    """What the box gets: the probe's inputs only."""
    out: dict[str, Any] = {"type": probe.type, "deadline_s": deadline_s, "whole_box": whole_box}
    if probe.type == "api":
        out["calls"] = [{"module": c.module(), "attr": c.attribute(), "args": c.args, "kwargs": c.kwargs}
                        for c in probe.calls or []]
    elif probe.type == "imports":  # the api driver, calling importlib.import_module on each
        out["type"] = "api"
        out["calls"] = [{"module": "importlib", "attr": "import_module", "args": [m], "kwargs": {}}
                        for m in probe.modules or []]
    elif probe.type in ("sql_owner", "file_owner"):
        out["package"], out["runs"] = probe.package, probe.runs
    elif probe.type == "pytest":
        out["args"] = list(probe.args or [])
    return out


def command(data: dict[str, Any]) -> str:
    """``python3 -I -B -`` with the driver and ``data`` on stdin: the workspace is not on its path."""
    src = DRIVER.read_text() + f"\nINPUTS = {json.dumps(data)!r}\nsys.exit(main(json.loads(INPUTS)))\n"
    if EOF_MARK in src:
        raise ProbeInfraError(f"a probe's inputs may not contain {EOF_MARK}")
    return f"exec python3 -I -B - <<'{EOF_MARK}'\n{src}\n{EOF_MARK}\n"


def last_result(stdout: str) -> dict[str, Any] | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARK):
            try:
                got = json.loads(line[len(MARK):])
            except ValueError:
                return None
            return got if isinstance(got, dict) else None
    return None


def run(check: Check, probe: Probe, ctx: GradingContext) -> Ran:
    """Run ``probe`` in the grading's box; ProbeInfraError when the probe itself failed."""
    limit = ctx.timeout_for(check)
    cmd = command(inputs(probe, max(1.0, limit - MARGIN_S), ctx.backend == "bwrap"))
    try:
        res = ctx.box(cmd, timeout=limit, output_cap=RESULT_CAP)
    except Exception as e:  # the box could not start
        raise ProbeInfraError(f"the probe's box could not run: {type(e).__name__}: {e}") from e
    # only a driver that ended on its own (exit 0) wrote the last line: an app process that forges a line
    # into the box's stdout and then kills the driver leaves its forgery last
    got = last_result(res.stdout_tail) if res.exit_code == 0 and not res.timed_out else None
    if got is None:
        if res.timed_out:
            return Ran([], {}, f"the probe timed out after {limit:.0f}s")
        if breach := res.breach("probe"):
            return Ran([], {}, breach)
        if res.exit_code is not None and (res.exit_code < 0 or res.exit_code > 128 or res.exit_code == FLOODED):
            return Ran([], {}, f"the probe was killed or flooded by an app process (exit {res.exit_code})")
        err = " ".join(res.stderr_tail.strip().splitlines()[-3:])[-300:]
        raise ProbeInfraError(f"the probe gave no result (exit {res.exit_code}): {err or 'no output'}")
    if "harness_error" in got:
        last = str(got["harness_error"]).strip().splitlines()[-1:] or ["?"]
        raise ProbeInfraError(f"the probe's driver crashed: {last[0][:300]}")
    facts = got.get("facts")
    if not isinstance(facts, dict) or not isinstance(facts.get("apps"), list):
        raise ProbeInfraError("the probe's driver gave no facts")
    apps = [a for a in facts["apps"] if isinstance(a, dict)]
    for app in apps:
        if not any(f.get("ready") is True for f in app.get("facts") or []):
            err = " ".join(str(app.get("err", "")).strip().splitlines()[-3:])[-300:]
            raise ProbeInfraError(f"the probe's interpreter did not start (exit {app.get('code')}): {err or 'no output'}")
    runs = [r for r in facts.get("runs") or [] if isinstance(r, dict)]
    return Ran(apps, facts, runs=runs)
