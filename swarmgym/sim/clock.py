"""The simulator's one clock: every timestamp, duration and id a run emits comes from it.

Simulated minutes count from the run's start (the wall clock when the run began, or
``SWARMGYM_SIM_START`` to pin it).  A simulated instant is written in goose's format
(RFC 3339, nanoseconds, ``+00:00``: chrono's ``to_rfc3339_opts(Nanos, false)``).  The time scale
(real seconds per simulated minute) only decides how long the process *waits*: at 60 s per
simulated minute the simulated clock is the wall clock.
"""
from __future__ import annotations

import time
from datetime import UTC, datetime

from swarmgym.core.errors import UsageError

NS_PER_MIN = 60_000_000_000


def parse_start(raw: str | None) -> int | None:
    """``SWARMGYM_SIM_START`` (RFC 3339 / ISO 8601) as Unix nanoseconds, or None when unset."""
    if raw is None or not raw.strip():
        return None
    try:
        d = datetime.fromisoformat(raw.strip())
    except ValueError:
        raise UsageError(f"SWARMGYM_SIM_START={raw!r}: expected an RFC 3339 time such as "
                         "2026-01-01T12:00:00+00:00") from None
    if d.tzinfo is None:
        d = d.replace(tzinfo=UTC)
    return int(d.timestamp()) * 1_000_000_000 + d.microsecond * 1000


class SimClock:
    def __init__(self, start_ns: int | None = None, scale: float = 0.0) -> None:
        self.start_ns = time.time_ns() if start_ns is None else start_ns
        self.scale = scale
        self._mono0 = time.monotonic()

    def ns(self, minutes: float) -> int:
        """The simulated instant ``minutes`` after the start, in Unix nanoseconds."""
        return self.start_ns + round(minutes * NS_PER_MIN)

    def rfc3339(self, minutes: float) -> str:
        ns = self.ns(minutes)
        d = datetime.fromtimestamp(ns // 1_000_000_000, UTC)
        return f"{d:%Y-%m-%dT%H:%M:%S}.{ns % 1_000_000_000:09d}+00:00"

    def sql(self, minutes: float) -> str:
        """SQLite's ``CURRENT_TIMESTAMP`` form (UTC, seconds) for a simulated instant."""
        return datetime.fromtimestamp(self.ns(minutes) // 1_000_000_000, UTC).strftime("%Y-%m-%d %H:%M:%S")

    def epoch_s(self, minutes: float) -> int:
        return self.ns(minutes) // 1_000_000_000

    def day(self, minutes: float) -> str:
        """goose's session-id date part (``%Y%m%d``, UTC)."""
        return datetime.fromtimestamp(self.epoch_s(minutes), UTC).strftime("%Y%m%d")

    def run_id(self) -> str:
        """goose's run id: ``swarm-YYYYMMDD-HHMMSS`` + milliseconds."""
        d = datetime.fromtimestamp(self.start_ns // 1_000_000_000, UTC)
        return f"swarm-{d:%Y%m%d-%H%M%S}{(self.start_ns // 1_000_000) % 1000:03d}"

    def sleep_until(self, minutes: float) -> None:
        """Wait (really) until the simulated instant ``minutes``, at the time scale."""
        wait = self._mono0 + minutes * self.scale - time.monotonic()
        if wait > 0:
            time.sleep(wait)


def ms(minutes: float) -> int:
    """A simulated duration in goose's milliseconds (exactly what the clock's timestamps span)."""
    return round(minutes * NS_PER_MIN) // 1_000_000
