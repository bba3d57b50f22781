"""The simulator's ``.swarm/run-<run_id>.jsonl`` writer (one flushed JSON line per event).

Each line carries ``ts`` (the simulated clock, goose's RFC 3339 form), ``run_id``, ``seq`` (from 0,
as goose's sink counts) and ``event``, then the event's own fields in goose's order; progress also
goes to stderr.  Next to the log a sidecar ``run-<run_id>.sim.json`` names the seed the run used.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from swarmgym.sim.clock import SimClock


class EventLog:
    def __init__(self, workspace: Path, err: TextIO, clock: SimClock) -> None:
        self.dir = Path(workspace) / ".swarm"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.clock = clock
        self.run_id = clock.run_id()
        bump = 0
        while (self.dir / f"run-{self.run_id}.jsonl").exists():  # two runs in one millisecond
            bump += 1
            self.run_id = f"{clock.run_id()}-{bump}"
        self.path = self.dir / f"run-{self.run_id}.jsonl"
        self.f = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - held for the run, closed by close()
        self.err = err
        self.seq = 0

    def sidecar(self, data: dict[str, Any]) -> Path:
        path = self.dir / f"run-{self.run_id}.sim.json"
        path.write_text(json.dumps(data, indent=2) + "\n")
        return path

    def emit(self, at: float, event: str, body: dict[str, Any]) -> None:
        line = {"ts": self.clock.rfc3339(at), "run_id": self.run_id, "seq": self.seq, "event": event, **body}
        self.seq += 1
        self.f.write(json.dumps(line, ensure_ascii=False) + "\n")
        self.f.flush()
        what = " ".join(f"{k}={line[k]}" for k in ("task_id", "device", "status", "attempt") if k in line)
        self.err.write(f"[swarm +{at:5.1f}m] {event} {what}\n")
        self.err.flush()

    def write_partial(self, at: float) -> None:
        """A line cut mid-way, as a killed process leaves it."""
        line = {"ts": self.clock.rfc3339(at), "run_id": self.run_id, "seq": self.seq, "event": "scheduler_stuck",
                "remaining": 1}
        self.seq += 1
        self.f.write(json.dumps(line)[:40])
        self.f.flush()

    def close(self) -> None:
        self.f.close()
