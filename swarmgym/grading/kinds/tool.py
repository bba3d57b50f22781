"""``tool_called``: the swarm evidence shows a call of the tool (a suffix after ``__`` matches too)."""
from __future__ import annotations

from swarmgym.grading.context import GradingContext
from swarmgym.grading.kinds.base import result
from swarmgym.models import CheckResult, Evidence
from swarmgym.suitekit.suite import Check


def tool_names(evidence: Evidence | None) -> list[str]:
    """Every tool call name the evidence shows, from the RunReport and the session traces."""
    if evidence is None:
        return []
    names = [t.name for trace in evidence.traces.values() for t in trace.tool_calls]
    if evidence.report:
        names += [t.name for task in evidence.report.tasks for t in task.tool_calls]
    for e in evidence.events:
        if e.get("event") == "task_completed":
            names += [t.get("name", "") for t in e.get("tool_calls") or [] if isinstance(t, dict)]
    return names


class ToolCalled:
    name = "tool_called"

    def run(self, check: Check, ctx: GradingContext) -> CheckResult:
        tool = check.tool or ""
        names = tool_names(ctx.evidence)
        if any(n == tool or n.endswith("__" + tool) for n in names):
            return result(check, True, f"{tool} called")
        if ctx.evidence is None:
            return result(check, False, "no swarm evidence")
        return result(check, False, f"{tool} never called ({len(names)} tool calls seen)")
