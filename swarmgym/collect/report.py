"""The swarm's RunReport: parse it tolerantly from stdout, or rebuild it from the event log.

goose versions differ: an older one omits fields, a newer one adds some.  Unknown fields are
kept (the models are ``Tolerant``), missing ones take their defaults, and a field whose value
has the wrong shape is dropped rather than sinking the whole report.  Every such repair is
reported back as a one-line problem string.
"""
from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from swarmgym.collect.jsonbound import find_report
from swarmgym.models import RunReport, TaskOutcome

#: the RunReport fields of the goose version this harness was written against (docs/architecture.md section 4)
KNOWN_FIELDS = tuple(RunReport.model_fields)
NON_MCP_PREFIXES = ("developer", "platform", "recipe")


def is_mcp_name(name: str) -> bool:
    """An MCP tool's name holds ``__`` and its prefix is not a goose built-in extension."""
    prefix, sep, _ = (name or "").partition("__")
    return bool(sep) and prefix not in NON_MCP_PREFIXES


def looks_like_report(obj: Any) -> bool:
    """A RunReport, not one of its parts: no ``task_id`` and at least two RunReport fields
    (``tasks`` alone will do)."""
    if not isinstance(obj, dict) or "task_id" in obj:
        return False
    return "tasks" in obj or sum(1 for k in KNOWN_FIELDS if k in obj) >= 2


def find_json_object(text: str) -> dict[str, Any] | None:
    """The RunReport object in ``text``: the whole text, else the last *outermost* JSON object
    that is a RunReport (goose prints it with ``to_string_pretty``, possibly after noise lines).

    Objects nested inside another decoded object are never candidates, so a task object is never
    taken for the report; a truncated report is no report at all.  Time linear in the text, nesting
    capped (:mod:`swarmgym.collect.jsonbound`): whatever the swarm printed, this returns.
    """
    return find_report(text, looks_like_report)


def _normalise_tool_calls(items: Any) -> list[Any]:
    out = []
    for t in items if isinstance(items, list) else []:
        if isinstance(t, str):  # some versions log bare names
            out.append({"name": t, "is_mcp": is_mcp_name(t)})
        elif isinstance(t, dict):
            t = dict(t)
            t.setdefault("is_mcp", is_mcp_name(str(t.get("name", ""))))
            out.append(t)
    return out


def coerce_report(data: dict[str, Any]) -> tuple[RunReport, list[str]]:
    """Build a RunReport from a decoded dict, repairing what does not fit; never raises."""
    problems: list[str] = []
    data = dict(data)
    missing = [f for f in KNOWN_FIELDS if f not in data]
    extra = sorted(k for k in data if k not in KNOWN_FIELDS)
    if missing:
        problems.append(f"report: fields missing (older swarm version?), defaults used: {', '.join(missing)}")
    if extra:
        problems.append(f"report: unknown fields kept (newer swarm version?): {', '.join(extra)}")
    tasks = []
    for i, raw in enumerate(data.get("tasks") or [] if isinstance(data.get("tasks"), list) else []):
        if not isinstance(raw, dict):
            problems.append(f"report: tasks[{i}] is not an object; dropped")
            continue
        raw = dict(raw)
        if "tool_calls" in raw:
            raw["tool_calls"] = _normalise_tool_calls(raw["tool_calls"])
        try:
            tasks.append(TaskOutcome.model_validate(raw))
        except ValidationError as e:
            bad = {str(err["loc"][0]) for err in e.errors() if err["loc"]}
            for key in bad:
                raw.pop(key, None)
            problems.append(f"report: tasks[{i}] field(s) of the wrong shape dropped: {', '.join(sorted(bad))}")
            try:
                tasks.append(TaskOutcome.model_validate(raw))
            except ValidationError:
                problems.append(f"report: tasks[{i}] unreadable; dropped")
    if "tasks" in data and not isinstance(data["tasks"], list):
        problems.append("report: tasks is not a list; dropped")
    data["tasks"] = []
    for _ in range(len(data) + 1):
        try:
            report = RunReport.model_validate(data)
            break
        except ValidationError as e:
            bad_keys = sorted({str(err["loc"][0]) for err in e.errors() if err["loc"]})
            if not bad_keys:
                return RunReport(), problems + ["report: unreadable; ignored"]
            for key in bad_keys:
                data.pop(key, None)
            problems.append(f"report: field(s) of the wrong shape dropped: {', '.join(bad_keys)}")
    else:  # pragma: no cover - each pass drops at least one key
        report = RunReport()
    report.tasks = tasks
    return report, problems


def parse_report(stdout: str) -> tuple[RunReport | None, list[str]]:
    """The RunReport printed on stdout, or None (with a problem) if stdout holds no JSON object."""
    data = find_json_object(stdout)
    if data is None:
        what = "empty" if not (stdout or "").strip() else "not JSON"
        return None, [f"report: stdout is {what}; no RunReport printed"]
    return coerce_report(data)


def report_from_events(events: list[dict[str, Any]]) -> RunReport | None:
    """Rebuild a RunReport from ``task_completed`` events (when stdout never printed one)."""
    completed = [e for e in events if e.get("event") == "task_completed"]
    plan = next((e for e in events if e.get("event") == "plan_loaded"), None)
    if not completed and plan is None:
        return None
    report = RunReport()
    latest: dict[str, TaskOutcome] = {}
    for e in completed:
        raw = {k: v for k, v in e.items() if k not in ("ts", "run_id", "seq", "event")}
        raw["tool_calls"] = _normalise_tool_calls(raw.get("tool_calls"))
        try:
            task = TaskOutcome.model_validate(raw)
        except ValidationError:
            task = TaskOutcome(task_id=str(raw.get("task_id", "")), status=str(raw.get("status", "incomplete")))
        latest[task.task_id] = task  # a later completion of the same task wins
    report.tasks = list(latest.values())
    for t in report.tasks:
        bucket = {"done": report.done, "failed": report.failed, "salvaged": report.salvaged}.get(t.status)
        if bucket is not None:
            bucket.append(t.task_id)
        if t.output:
            report.results[t.task_id] = t.output
    for e in events:
        if e.get("event") == "task_dispatched" and e.get("device"):
            dev = str(e["device"])
            report.dispatched_per_device[dev] = report.dispatched_per_device.get(dev, 0) + 1
    if plan:
        files = plan.get("planned_files") or [f for t in plan.get("tasks") or [] if isinstance(t, dict)
                                              for f in t.get("files") or []]
        report.planned_files = [str(f) for f in files]
        owned = {str(t.get("id", t.get("task_id", ""))): list(t.get("files") or [])
                 for t in plan.get("tasks") or [] if isinstance(t, dict)}
        planned = [str(t.get("id", t.get("task_id", ""))) if isinstance(t, dict) else str(t)
                   for t in plan.get("tasks") or []]
        seen = set(latest)
        for tid in planned:  # planned but never completed: the run stopped before them
            if tid and tid not in seen:
                report.tasks.append(TaskOutcome(task_id=tid, status="incomplete"))
        for t in report.tasks:  # goose's owns_nothing: a planned task that owns no file
            t.owns_nothing = t.task_id in owned and not owned[t.task_id]
    return report
