"""A Python process whose wall clock is off by ``SKEWED_CLOCK_OFFSET`` seconds (:mod:`swarmgym.testing.clockskew`).

Imported by Python at start when this folder is on ``PYTHONPATH``: ``time.time`` and ``time.time_ns`` (what
swarmgym, Celery and kombu stamp with) read the real clock plus the offset; monotonic clocks and sleeps are
untouched, as on a machine whose clock is merely set wrong.
"""
import os
import time

_offset = float(os.environ.get("SKEWED_CLOCK_OFFSET") or 0)
if _offset:
    _time, _time_ns = time.time, time.time_ns
    time.time = lambda: _time() + _offset
    time.time_ns = lambda: _time_ns() + int(_offset * 1e9)
