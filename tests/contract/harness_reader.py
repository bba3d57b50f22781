"""How goose's other clients read a run — the public swarm-gym harness (goose local-edition
``evals/swarm-gym/harness``: ``runner.py``, ``collector.py``, ``occupancy.py``, ``plan_shape.py``),
restated here from what that code does (not copied):

- the report: ``json.loads`` of the *whole* stdout of ``goose swarm run --output-format json``;
- the log: the last of ``<workspace>/.swarm/run-swarm-*.jsonl`` sorted by name;
- the traces: ``~/.local/share/goose/sessions/sessions.db`` (from ``$HOME``), opened read-only,
  ``messages`` rows of each task's ``session_id`` in rowid order;
- occupancy: the sum of ``task_completed.elapsed_ms`` over (the span from the first
  ``task_dispatched`` to the last ``task_completed`` × the number of ``run_started.pool`` entries);
- plan shape: ``plan_loaded.tasks`` keyed by ``id``.
"""
from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any


def report(stdout: str) -> dict[str, Any]:
    return json.loads(stdout)


def latest_log(workspace: Path) -> Path | None:
    logs = sorted((workspace / ".swarm").glob("run-swarm-*.jsonl"))
    return logs[-1] if logs else None


def events(log: Path) -> list[dict[str, Any]]:
    out = []
    for line in log.read_text(errors="replace").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def when(ts: str | None) -> float | None:
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() if ts else None  # noqa: FURB162 - as the harness does


def occupancy(evs: list[dict[str, Any]]) -> dict[str, Any]:
    pool: list[str] = []
    busy_ms, first, last = 0, None, None
    for e in evs:
        t = when(e.get("ts"))
        if e.get("event") == "run_started":
            pool = [str(d) for d in e.get("pool") or []]
        elif e.get("event") == "task_dispatched" and first is None:
            first = t
        elif e.get("event") == "task_completed":
            busy_ms += int(e.get("elapsed_ms") or 0)
            last = t
    wall = (last - first) if first is not None and last is not None else 0.0
    cap = wall * len(pool)
    return {"n_devices": len(pool), "wall_s": wall, "busy_s": busy_ms / 1000,
            "occupancy": busy_ms / 1000 / cap if cap > 0 else 0.0, "measurable": bool(pool and wall > 0 and busy_ms)}


def plan_ids(evs: list[dict[str, Any]]) -> list[str]:
    plan = next((e for e in evs if e.get("event") == "plan_loaded"), {})
    return [str(t.get("id")) for t in plan.get("tasks") or [] if t.get("id")]


def sessions_db(home: Path) -> Path:
    return home / ".local/share/goose/sessions/sessions.db"


def trace(home: Path, session_id: str) -> list[dict[str, Any]]:
    db = sessions_db(home)
    if not db.exists():
        return []
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT role, content_json FROM messages WHERE session_id=? ORDER BY rowid",
                           (session_id,)).fetchall()
    finally:
        con.close()
    return [{"role": r, "content": c} for r, c in rows]
