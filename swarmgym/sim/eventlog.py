"""The simulator's ``.swarm/run-<run_id>.jsonl`` writer (one flushed JSON line per event).

Each line carries ``ts`` (wall clock), ``run_id``, ``seq`` and ``event``; progress also goes
to stderr.  Simulated minutes are turned into real sleeps by the time scale.
"""
from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO


def new_run_id(swarm_dir: Path) -> str:
    now = datetime.now(timezone.utc)
    for bump in range(1000):
        t = now.timestamp() + bump / 1000
        d = datetime.fromtimestamp(t, timezone.utc)
        run_id = f"swarm-{d:%Y%m%d-%H%M%S}{d.microsecond // 1000:03d}"
        if not (swarm_dir / f"run-{run_id}.jsonl").exists():
            return run_id
    return f"swarm-{now:%Y%m%d-%H%M%S}999"


class EventLog:
    def __init__(self, workspace: Path, err: TextIO) -> None:
        self.dir = Path(workspace) / ".swarm"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.run_id = new_run_id(self.dir)
        self.path = self.dir / f"run-{self.run_id}.jsonl"
        self.f = open(self.path, "a", encoding="utf-8")
        self.err = err
        self.seq = 0
        self.t0 = time.monotonic()

    def sleep_until(self, sim_minutes: float, scale: float) -> None:
        wait = self.t0 + sim_minutes * scale - time.monotonic()
        if wait > 0:
            time.sleep(wait)

    def emit(self, at: float, event: str, body: dict[str, Any] | None = None, **fields: Any) -> None:
        self.seq += 1
        ts = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        line = {"ts": ts, "run_id": self.run_id, "seq": self.seq, "event": event, **(body or {}), **fields}
        self.f.write(json.dumps(line) + "\n")
        self.f.flush()
        what = " ".join(f"{k}={line[k]}" for k in ("task_id", "device", "status", "attempt") if k in line)
        self.err.write(f"[swarm +{at:5.1f}m] {event} {what}\n")
        self.err.flush()

    def write_partial(self) -> None:
        """A line cut mid-way, as a killed process leaves it."""
        self.seq += 1
        self.f.write(json.dumps({"ts": "", "run_id": self.run_id, "seq": self.seq, "event": "scheduler_stuck",
                                 "waiting_on": "worker"})[:40])
        self.f.flush()

    def close(self) -> None:
        self.f.close()
