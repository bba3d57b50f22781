"""A host whose clock is wrong, for tests and ``benchmarks/chaos.py``: ``skewed_env(300)`` is the environment
of a Python process (and every Python process it starts) whose wall clock runs 5 minutes ahead.

A time namespace moves only the monotonic clocks, and libfaketime (Debian's ``faketime``) 0.9.10 breaks
Python's sleeps when it leaves them alone (``clock_nanosleep`` fails with EINVAL), so the clock is faked in
the process itself: a ``sitecustomize`` (``swarmgym/testing/skewed/``) shifts ``time.time``/``time_ns``.
"""
from __future__ import annotations

import os
from pathlib import Path

SITE = Path(__file__).resolve().parent / "skewed"


def skewed_env(offset_secs: float, base: dict[str, str] | None = None) -> dict[str, str]:
    """The env entries that put this process's wall clock ``offset_secs`` off (negative: behind)."""
    path = (base or os.environ).get("PYTHONPATH", "")
    return {"PYTHONPATH": os.pathsep.join([str(SITE), *([path] if path else [])]),
            "SKEWED_CLOCK_OFFSET": str(float(offset_secs))}
