"""The RunReport the simulator prints (all docs/architecture.md section 4 fields, nothing wall-clock)."""
from __future__ import annotations

import json
from typing import Any

from swarmgym.collect.report import is_mcp_name
from swarmgym.sim.fleet import Device
from swarmgym.sim.plan import Task
from swarmgym.sim.schedule import TaskRun


def _ms(minutes: float) -> int:
    return int(round(minutes * 60000))


def build_report(tasks: list[Task], runs: list[TaskRun], devices: list[Device], planned: list[str],
                 session_ids: dict[str, str]) -> dict[str, Any]:
    enabled = [d.id for d in devices if d.enabled]
    per_device = {d: {"dispatched": 0, "tool_calls": 0, "mcp_calls": 0, "retries": 0, "busy_ms": 0} for d in enabled}
    report: dict[str, Any] = {"done": [], "failed": [], "salvaged": [], "bonus": [], "planned_files": planned,
                              "results": {}, "dispatched_per_device": {d: 0 for d in enabled},
                              "per_device": per_device, "tasks": []}
    by_id = {r.task.task_id: r for r in runs}
    for t in tasks:
        r = by_id.get(t.task_id)
        if r is None:  # nothing could be dispatched
            report["failed"].append(t.task_id)
            report["tasks"].append({"task_id": t.task_id, "status": "failed", "device": None, "model": None,
                                    "attempts": 0, "attempt_history": [], "elapsed_ms": 0, "session_id": None,
                                    "tool_calls": [], "output": "no device available"})
            continue
        report[r.status].append(t.task_id)
        report["results"][t.task_id] = r.output
        for n, a in enumerate(r.attempts):
            stats = per_device.setdefault(a.device.id, {"dispatched": 0, "tool_calls": 0, "mcp_calls": 0,
                                                        "retries": 0, "busy_ms": 0})
            report["dispatched_per_device"][a.device.id] = report["dispatched_per_device"].get(a.device.id, 0) + 1
            stats["dispatched"] += 1
            stats["busy_ms"] += _ms(a.end - a.start)
            stats["retries"] += 1 if n > 0 else 0
        calls = [{"name": c["name"], "is_mcp": is_mcp_name(c["name"]), "ok": c["ok"]} for c in r.calls]
        final = per_device[r.final.device.id]
        final["tool_calls"] += len(calls)
        final["mcp_calls"] += sum(1 for c in calls if c["is_mcp"])
        report["tasks"].append({
            "task_id": t.task_id, "status": r.status, "device": r.final.device.id, "model": r.final.model,
            "attempts": len(r.attempts),
            "attempt_history": [{"device": a.device.id, "model": a.model, "outcome": a.outcome, "error": a.error,
                                 "elapsed_ms": _ms(a.end - a.start)} for a in r.attempts],
            "elapsed_ms": _ms(r.final.end - r.attempts[0].start), "session_id": session_ids[t.task_id],
            "tool_calls": calls, "output": r.output})
    return report


def render_stdout(report: dict[str, Any], output_format: str) -> str:
    if output_format == "json":
        return json.dumps(report) + "\n"
    lines = [f"done: {len(report['done'])}  failed: {len(report['failed'])}  salvaged: {len(report['salvaged'])}"]
    for t in report["tasks"]:
        lines.append(f"  {t['task_id']:<24} {t['status']:<9} {t['device'] or '-':<12} {t['output']}")
    lines.append("per device: " + ", ".join(f"{d}={n}" for d, n in report["dispatched_per_device"].items()))
    return "\n".join(lines) + "\n"
