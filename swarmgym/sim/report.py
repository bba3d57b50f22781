"""The RunReport the simulator prints, in goose's shape (goose-swarm ``scheduler.rs`` ``RunReport``,
``TaskOutcome``, ``AttemptRecord``, ``DeviceSummary``; ``dispatch.rs`` ``ToolCallRecord``), pretty
printed as ``serde_json::to_string_pretty`` does.

Durations come from the simulated clock: a task's ``elapsed_ms`` is its final attempt's span (as
goose documents it), an attempt's its own span, a device's ``busy_ms`` the sum of its attempts.
"""
from __future__ import annotations

import json
from typing import Any

from swarmgym.collect.report import is_mcp_name
from swarmgym.sim.clock import ms
from swarmgym.sim.fleet import Device
from swarmgym.sim.plan import Task
from swarmgym.sim.schedule import Attempt, TaskRun


def tool_call(c: dict[str, Any]) -> dict[str, Any]:
    """goose ``ToolCallRecord``: ``name, is_mcp, ok, fetched_external``."""
    return {"name": c["name"], "is_mcp": is_mcp_name(c["name"]), "ok": c["ok"], "fetched_external": False}


def attempt_record(a: Attempt) -> dict[str, Any]:
    return {"device": a.device.id, "model": a.model, "outcome": a.outcome, "error": a.error,
            "elapsed_ms": ms(a.end - a.start)}


def _completion(r: TaskRun) -> dict[str, Any] | None:
    if r.status == "done":
        return {"kind": "complete"}
    if r.status == "salvaged":
        return {"kind": "salvaged", "receipt": {"task_id": r.task.task_id, "attempt": len(r.attempts) - 1,
                                                "reason": "stall_exhausted",
                                                "required_verification": "full_repair_ruler"}}
    return None


def outcome(t: Task, r: TaskRun | None, session_id: str | None) -> dict[str, Any]:
    """goose ``TaskOutcome`` for one task (``r`` None: never dispatched)."""
    if r is None:
        return {"task_id": t.task_id, "status": "incomplete", "salvaged": False, "completion": None,
                "device": None, "model": None, "attempts": 0, "attempt_history": [], "elapsed_ms": None,
                "session_id": None, "tool_calls": [], "output": None, "owns_nothing": t.owns_nothing}
    return {"task_id": t.task_id, "status": r.status, "salvaged": r.status == "salvaged",
            "completion": _completion(r), "device": r.final.device.id, "model": r.final.model,
            "attempts": len(r.attempts), "attempt_history": [attempt_record(a) for a in r.attempts],
            "elapsed_ms": ms(r.final.end - r.final.start), "session_id": session_id,
            "tool_calls": [tool_call(c) for c in r.calls], "output": r.output, "owns_nothing": t.owns_nothing}


def build_report(tasks: list[Task], runs: list[TaskRun], devices: list[Device], planned: list[str],
                 session_ids: dict[str, str]) -> dict[str, Any]:
    enabled = [d.id for d in devices if d.enabled]
    per_device = {d: {"dispatched": 0, "tool_calls": 0, "mcp_calls": 0, "retries": 0, "busy_ms": 0} for d in enabled}
    dispatched = {d: 0 for d in enabled}
    lists: dict[str, list[str]] = {"done": [], "salvaged": [], "failed": []}
    results: dict[str, str] = {}
    outcomes = []
    by_id = {r.task.task_id: r for r in runs}
    for t in tasks:
        r = by_id.get(t.task_id)
        outcomes.append(outcome(t, r, session_ids.get(t.task_id) if r else None))
        if r is None:
            continue
        lists[r.status].append(t.task_id)
        if r.status != "failed":
            results[t.task_id] = r.output
        for n, a in enumerate(r.attempts):
            stats = per_device.setdefault(a.device.id, {"dispatched": 0, "tool_calls": 0, "mcp_calls": 0,
                                                        "retries": 0, "busy_ms": 0})
            dispatched[a.device.id] = dispatched.get(a.device.id, 0) + 1
            stats["dispatched"] += 1
            stats["busy_ms"] += ms(a.end - a.start)
            stats["retries"] += 1 if n > 0 else 0
        final = per_device[r.final.device.id]
        final["tool_calls"] += len(r.calls)
        final["mcp_calls"] += sum(1 for c in r.calls if is_mcp_name(c["name"]))
    owned = sorted({f for t in tasks if by_id.get(t.task_id) and by_id[t.task_id].status != "failed"
                    for f in t.files})
    return {"done": lists["done"], "salvaged": lists["salvaged"], "failed": lists["failed"], "bonus": [],
            "planned_files": owned, "results": results, "context_json": {},
            "dispatched_per_device": dispatched, "tasks": outcomes, "per_device": per_device}


def render_stdout(report: dict[str, Any], output_format: str) -> str:
    if output_format == "json":  # serde_json::to_string_pretty: two-space indent, UTF-8 as is
        return json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    lines = [f"done: {len(report['done'])}  failed: {len(report['failed'])}  salvaged: {len(report['salvaged'])}"]
    for t in report["tasks"]:
        lines.append(f"  {t['task_id']:<24} {t['status']:<9} {t['device'] or '-':<12} {t['output'] or ''}")
    lines.append("per device: " + ", ".join(f"{d}={n}" for d, n in report["dispatched_per_device"].items()))
    return "\n".join(lines) + "\n"
