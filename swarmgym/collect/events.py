"""The swarm's structured event log: ``<workspace>/.swarm/run-<run_id>.jsonl``.

One JSON object per line with ``ts``, ``run_id``, ``seq`` and ``event``.  The log may be cut
mid-line (a crash or a timeout kill): every whole line is kept and the cut is recorded as a
problem.  Event names are normalised (``prereview`` → ``pre_review`` …).  Every event goose
writes is known (the scheduler's ``SwarmEvent`` in goose-swarm ``event.rs``, goose-cli's
caller-side events); an event this harness does not know yet is kept and counted quietly —
a newer goose is not a problem.  The log is read as the workspace's own regular file (never through a
link, never a FIFO: :mod:`swarmgym.trust.safefs`), at most ``MAX_LOG_BYTES``.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from swarmgym.collect import jsonbound
from swarmgym.models import PoolDevice
from swarmgym.trust import safefs

#: goose-swarm ``event.rs`` ``SwarmEvent`` variants (snake_case tags)
SCHEDULER_EVENTS = frozenset({
    "task_dispatched", "task_completed", "task_retry", "scheduler_stuck", "run_paused", "run_unpaused",
    "replanned", "task_split", "speculated", "judge_verdict", "pre_review",
})
#: goose-cli's caller-side events (``EventSink::write_value``)
CALLER_EVENTS = frozenset({
    "run_started", "plan_loaded", "run_finished", "run_resumed", "fleet_resolved", "device_unservable",
    "planner_fallback", "levers_resolved", "low_confidence_ask",
})
KNOWN_EVENTS = SCHEDULER_EVENTS | CALLER_EVENTS
ALIASES = {"prereview": "pre_review", "speculation": "speculated", "replan": "replanned"}
MAX_LOG_BYTES = 64 * 1024 * 1024


@dataclass
class EventLog:
    path: Path | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    unknown: dict[str, int] = field(default_factory=dict)
    pool: list[PoolDevice] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def newest_log(workspace: Path | str, since: float | None = None) -> Path | None:
    """The most recent ``.swarm/run-*.jsonl`` (by mtime, then name); ``since`` filters older ones.
    Only regular files reached without a link count (:mod:`swarmgym.trust.safefs`)."""
    listing = safefs.list_files(workspace, under=".swarm", max_depth=0, max_files=10_000)
    logs = [(f.mtime, f.rel, f) for f in listing.files
            if fnmatch.fnmatchcase(f.rel.rpartition("/")[2], "run-*.jsonl") and (since is None or f.mtime >= since)]
    return Path(workspace) / max(logs)[1] if logs else None


def normalise(name: Any) -> str:
    name = str(name or "")
    return ALIASES.get(name, name)


def parse_lines(data: bytes, problems: list[str], where: str) -> list[dict[str, Any]]:
    lines = data.split(b"\n")
    ends_clean = data.endswith(b"\n") or not data
    events: list[dict[str, Any]] = []
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            obj = jsonbound.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            if n == len(lines) and not ends_clean:
                problems.append(f"events: {where}: last line cut mid-line ({len(raw)} bytes); "
                                f"kept the {len(events)} whole line(s)")
            else:
                problems.append(f"events: {where}:{n}: not JSON; line skipped")
            continue
        if not isinstance(obj, dict):
            problems.append(f"events: {where}:{n}: not a JSON object; line skipped")
            continue
        raw_name = obj.get("event")
        obj["event"] = normalise(raw_name)
        if obj["event"] != raw_name:
            obj["event_alias"] = raw_name
        events.append(obj)
    return events


def _pool(events: list[dict[str, Any]], problems: list[str]) -> list[PoolDevice]:
    start = next((e for e in events if e["event"] == "run_started"), None)
    if start is None:
        problems.append("events: no run_started event; fleet pool unknown")
        return []
    out = []
    for i, dev in enumerate(start.get("pool") or []):
        try:
            out.append(PoolDevice.model_validate(dev if isinstance(dev, dict) else {"id": str(dev)}))
        except ValidationError:
            problems.append(f"events: run_started.pool[{i}] unreadable; skipped")
    return out


def read_events(workspace: Path | str, path: Path | str | None = None, *, expect: bool = True) -> EventLog:
    """Read the run's event log (``path``, else the newest in the workspace); never raises."""
    log = EventLog()
    try:
        p = Path(path) if path else newest_log(workspace)
        got = None
        if p is not None:  # a log the caller named outside the workspace is still read as a plain file only
            rel = safefs.inside(workspace, p)
            got = safefs.read_bytes(workspace, rel, MAX_LOG_BYTES) if rel else safefs.read_bytes(
                p.parent, p.name, MAX_LOG_BYTES)
        if p is None or got is None:
            if expect:
                where = f"{Path(workspace) / '.swarm'}/run-*.jsonl" if p is None else p
                log.problems.append(f"events: no event log found ({where})")
            return log
        log.path = p
        data, cut = got
        if cut:
            log.problems.append(f"events: {p.name} larger than {MAX_LOG_BYTES} bytes; read the first part only")
        log.events = parse_lines(data, log.problems, p.name)
        for e in log.events:
            log.counts[e["event"]] = log.counts.get(e["event"], 0) + 1
        log.unknown = {k: n for k, n in log.counts.items() if k not in KNOWN_EVENTS}
        if not log.events:
            log.problems.append(f"events: {p.name} holds no events")
        else:
            log.pool = _pool(log.events, log.problems)
    except Exception as e:  # noqa: BLE001 - collect never raises
        log.problems.append(f"events: {type(e).__name__}: {e}")
    return log
