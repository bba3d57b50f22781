"""The one way swarmgym stamps an id: campaigns, comparisons and sessions.

An id carries the UTC second it was made (``YYYYMMDD-HHMMSS``), so ids sort by time and say when,
and a few random bytes, so two ids made in the same second never collide.
"""
from __future__ import annotations

import secrets
import time

STAMP = "%Y%m%d-%H%M%S"


def stamp(ts: float | None = None) -> str:
    """``YYYYMMDD-HHMMSS`` in UTC (now, or at ``ts``)."""
    return time.strftime(STAMP, time.gmtime(ts))


def new_id(prefix: str = "", *, after: str | None = None, nbytes: int = 2) -> str:
    """``[<prefix>-]<stamp>[-<after>]-<2·nbytes hex digits>``."""
    head = [prefix] if prefix else []
    tail = [after] if after is not None else []
    return "-".join([*head, stamp(), *tail, secrets.token_hex(nbytes)])
