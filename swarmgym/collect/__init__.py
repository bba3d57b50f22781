"""Collect: join every source of truth about one swarm run into :class:`Evidence`.

Sources (one module each): the RunReport (``report``), the ``.swarm/run-*.jsonl`` event log
(``events``), the workers' goose sessions (``traces``) and the workspace files (``snapshot``).
:func:`collect` never raises: each failure becomes a one-line string in ``Evidence.problems``.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from swarmgym.collect.events import read_events
from swarmgym.collect.report import report_from_events
from swarmgym.collect.snapshot import snapshot
from swarmgym.collect.traces import MAX_DB_MB, default_sessions_db, read_traces
from swarmgym.core.hosts import host_name
from swarmgym.models import Evidence, RunOutcome

__all__ = ["collect", "task_session_ids"]


def task_session_ids(outcome: RunOutcome | None, events: list[dict[str, Any]]) -> list[str]:
    ids: list[str] = []
    if outcome is not None and outcome.report is not None:
        ids += [t.session_id for t in outcome.report.tasks if t.session_id]
    ids += [str(e["session_id"]) for e in events if e.get("event") == "task_completed" and e.get("session_id")]
    return list(dict.fromkeys(ids))


def _step(ev: Evidence, name: str, fn) -> None:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - collect never raises
        ev.problems.append(f"{name}: {type(e).__name__}: {e}")


def collect(workspace: Path | str, outcome: RunOutcome | None, cfg, *,
            sessions_db: Path | str | None = None) -> Evidence:
    """Gather the evidence of one run in ``workspace``; never raises."""
    ev = Evidence(workspace=str(workspace))
    ev.host = host_name()
    ev.run = outcome.model_copy(deep=True) if outcome is not None else None
    if ev.run is not None:
        ev.problems += list(ev.run.problems)
    expect_log = outcome is None or outcome.has_fleet_log

    def events() -> None:
        log = read_events(workspace, ev.run.event_log if ev.run else None, expect=expect_log)
        if ev.run is not None and ev.run.event_log and log.path is None:  # recorded log vanished: try newest
            log = read_events(workspace, None, expect=expect_log)
        ev.events, ev.event_counts, ev.pool = log.events, log.counts, log.pool
        ev.problems.extend(log.problems)
        if ev.run is not None and ev.run.report is None and ev.events:
            rebuilt = report_from_events(ev.events)
            if rebuilt is not None:
                ev.run.report, ev.run.report_source = rebuilt, "events"
                ev.problems.append("report: none on stdout; tasks rebuilt from the task_completed events of "
                                   + (log.path.name if log.path else "the event log"))

    def traces() -> None:
        ids = task_session_ids(ev.run, ev.events)
        if not ids:
            return
        path = sessions_db or (ev.run.sessions_db if ev.run else None)
        if path is None and cfg is not None:
            path = default_sessions_db(os.environ, getattr(cfg.swarm, "sessions_db", None))
        ev.traces, problems = read_traces(path, ids, max_mb=getattr(getattr(cfg, "swarm", None), "sessions_db_max_mb",
                                                                    MAX_DB_MB))
        ev.problems.extend(problems)

    def files() -> None:
        limit = getattr(getattr(cfg, "swarm", None), "snapshot_max_files", 2000)
        ev.files, ev.files_truncated, problems = snapshot(workspace, limit)
        ev.problems.extend(problems)

    _step(ev, "events", events)
    _step(ev, "traces", traces)
    _step(ev, "snapshot", files)
    if ev.run is None:
        ev.problems.append("run: no swarm outcome given")
    elif ev.run.report is None:
        ev.problems.append("report: no RunReport from stdout or the event log")
    return ev
