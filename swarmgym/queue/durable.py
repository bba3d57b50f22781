"""Nothing the coordinator receives is dropped: ledger writes are retried until they are durable.

A ledger write can fail for reasons that pass: the disk is full, the folder went read-only, another
process holds the lock.  The coordinator task that writes then raises :class:`LedgerError` through
``task.retry`` with a capped exponential backoff and *no retry limit*: the result travels on in a
new broker message and the old one is acknowledged only then, so a result is acknowledged only
once it is in the ledger (jsonl fsynced, index committed) or safely back in the broker.

While writes fail, ``swarmgym:ledger:error`` (owner: this module) says since when, how often, the
last error and the job waiting: ``status`` prints it as one line, and Flower shows the task in
RETRY with the same message.  The first success deletes it.
"""
from __future__ import annotations

import logging
import random
import sqlite3
import time

import redis

from swarmgym.core.errors import LedgerError
from swarmgym.queue import keys
from swarmgym.queue.liveness import fmt_secs

log = logging.getLogger(__name__)

WRITE_ERRORS: tuple[type[BaseException], ...] = (LedgerError, sqlite3.Error, OSError)
BACKOFF_MAX = 15.0


def backoff(retries: int, cap: float = BACKOFF_MAX) -> float:
    """1, 2, 4, 8, 15, 15, ... seconds, with a little jitter so retries do not march in step."""
    return round(min(cap, 2.0 ** max(0, retries)) * random.uniform(0.8, 1.0), 2)


def describe(exc: BaseException) -> str:
    """One line: ``OperationalError: database or disk is full``."""
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {msg}"[:300] if msg else type(exc).__name__


def failing(r: redis.Redis, exc: BaseException, what: str) -> None:
    """Remember that a ledger write failed (best effort: Redis may be the thing that is down)."""
    now = round(time.time(), 3)
    try:
        pipe = r.pipeline(transaction=False)
        pipe.hsetnx(keys.LEDGER_ERROR, "since", now)
        pipe.hset(keys.LEDGER_ERROR, mapping={"last": now, "error": describe(exc), "waiting": what})
        pipe.hincrby(keys.LEDGER_ERROR, "attempts", 1)
        pipe.execute()
    except redis.RedisError:
        pass
    log.error("ledger write for %s failed (%s); retrying with backoff", what, describe(exc))


def ok(r: redis.Redis) -> None:
    try:
        if r.exists(keys.LEDGER_ERROR):
            r.delete(keys.LEDGER_ERROR)
    except redis.RedisError:
        pass


def state(r: redis.Redis) -> dict | None:
    """``{since, last, error, waiting, attempts}`` while writes fail, else None."""
    try:
        h = r.hgetall(keys.LEDGER_ERROR)
    except redis.RedisError:
        return None
    if not h:
        return None
    return {"since": float(h.get("since") or 0), "last": float(h.get("last") or 0), "error": h.get("error", ""),
            "waiting": h.get("waiting", ""), "attempts": int(h.get("attempts") or 0)}


def as_ledger_error(exc: BaseException) -> LedgerError:
    """A JSON-safe exception for Celery's retry (Flower shows its message)."""
    return exc if isinstance(exc, LedgerError) else LedgerError(f"ledger write failed: {describe(exc)}")


def line(st: dict | None, now: float | None = None) -> str | None:
    """The one line ``status`` shows, or None when writes succeed."""
    if not st:
        return None

    now = now or time.time()
    return (f"ledger writes failing for {fmt_secs(now - st['since'])} ({st['attempts']} attempt(s); last: "
            f"{st['error']}); results are kept in the queue and retried with backoff")

