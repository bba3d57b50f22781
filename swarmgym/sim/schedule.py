"""The simulated timeline of one run: attempts, devices, durations and tool calls per task.

Everything is drawn from per-purpose seeded streams with a fixed number of draws per task, so
the same seed gives the same timeline whatever the faults, flags or pool.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from swarmgym.sim.fleet import Device
from swarmgym.sim.plan import Task, weighted_rr

RETRY_ERRORS = (
    "worker hit max_turns without finishing",
    "tool call arguments were not valid JSON",
    "context window exceeded (GOOSE_LOCAL_CONTEXT_CAP)",
    "provider error: connection reset by the model server",
)
MCP_TOOLS = {"context7": "get-library-docs", "web-search": "search", "websearch": "search", "fetch": "fetch"}


@dataclass
class Attempt:
    device: Device
    model: str
    start: float  # simulated minutes from run start
    end: float
    outcome: str  # done | failed
    error: str | None = None


@dataclass
class TaskRun:
    task: Task
    attempts: list[Attempt] = field(default_factory=list)
    status: str = "done"  # done | failed | salvaged
    calls: list[dict[str, Any]] = field(default_factory=list)
    narrated: bool = False
    output: str = ""

    @property
    def final(self) -> Attempt:
        return self.attempts[-1]


def _tool_calls(task: Task, rng: random.Random, bad_rate: float, mcp: list[str], slug: str) -> list[dict[str, Any]]:
    u_shell, u_bad = rng.random(), rng.random()
    calls = [{"name": "developer__text_editor", "arguments": {"command": "write", "path": f}, "ok": True,
              "output": f"wrote {f}"} for f in task.files]
    run = "python3 -m pytest -q" if any(f.startswith("tests/") for f in task.files) else f"python3 -m {slug} --help"
    if u_bad < bad_rate:
        calls.append({"name": "developer__shell", "arguments": {"command": run}, "ok": False,
                      "output": "Traceback (most recent call last): … AttributeError"})
        calls.append({"name": "developer__text_editor", "arguments": {"command": "str_replace",
                      "path": task.files[0] if task.files else "README.md"}, "ok": True, "output": "edited"})
    calls.append({"name": "developer__shell", "arguments": {"command": run}, "ok": True, "output": "ok"})
    if u_shell < 0.5:
        calls.append({"name": "developer__shell", "arguments": {"command": "git status --short"}, "ok": True,
                      "output": ""})
    for m in mcp:
        calls.insert(0, {"name": f"{m}__{MCP_TOOLS.get(m, 'query')}", "arguments": {"query": task.title},
                         "ok": True, "output": "docs"})
    return calls


def schedule(tasks: list[Task], devices: list[Device], variant: str, *, minutes: float, retry_rate: float,
             bad_tool_rate: float, max_attempts: int, rngs: dict[str, random.Random], mcp: list[str], slug: str,
             crash_task: str | None = None, narrator_task: str | None = None) -> list[TaskRun]:
    """Dispatch ``tasks`` over ``devices`` (weighted round-robin) and time every attempt."""
    rr = weighted_rr(devices, rngs["dispatch"])
    free = {d.id: [0.0] * d.instances for d in devices}
    runs: list[TaskRun] = []
    ready = 0.5  # the planner takes the first half minute
    for i, task in enumerate(tasks):
        p = rngs["plan"]
        u_retry, u_crash, u_err = p.random(), p.random(), p.random()
        durs = [p.random() for _ in range(max_attempts + 1)]
        mcp_here = [m for j, m in enumerate(mcp) if j % len(tasks) == i]
        calls = _tool_calls(task, rngs["tools"], bad_tool_rate, mcp_here, slug)
        tr = TaskRun(task=task)
        if task.task_id == crash_task:
            fails = max_attempts if u_crash < 0.5 else 1
            tr.status = "failed" if fails == max_attempts else "salvaged"
        else:
            fails = 1 if (u_retry < retry_rate and max_attempts > 1) else 0
        t, prev = ready, None
        for a in range(fails + 1 if tr.status != "failed" else fails):
            dev = next(rr)
            if prev is not None and dev.id == prev and len(devices) > 1:
                dev = next(rr)
            slot = min(range(len(free[dev.id])), key=lambda k: free[dev.id][k])
            start = max(t, free[dev.id][slot])
            end = start + minutes * dev.speed * (0.6 + 0.9 * durs[a])
            free[dev.id][slot] = end
            failed = a < fails
            if failed and task.task_id == crash_task:
                err: str | None = "integrate check: the entry point raised an exception"
            else:
                err = RETRY_ERRORS[int(u_err * len(RETRY_ERRORS))] if failed else None
            outcome = "failed" if failed else ("salvaged" if tr.status == "salvaged" else "done")
            tr.attempts.append(Attempt(dev, dev.model_for(variant), round(start, 4), round(end, 4), outcome, err))
            t, prev = end, dev.id
        tr.calls = calls
        if task.task_id == narrator_task:
            tr.narrated, tr.calls = True, []
        if tr.status == "failed":
            tr.calls = [c for c in calls if c["name"] == "developer__text_editor"] + [
                {"name": "developer__shell", "arguments": {"command": f"python3 -m {slug} --help"}, "ok": False,
                 "output": "Traceback (most recent call last): … RuntimeError"}]
        tr.output = _output(tr)
        runs.append(tr)
    return runs


def _output(tr: TaskRun) -> str:
    files = ", ".join(tr.task.files) or "the app"
    if tr.status == "failed":
        return f"Could not finish {tr.task.task_id}: {tr.final.error}."
    if tr.status == "salvaged":
        return f"Partially implemented {files}; kept the work so far."
    return f"Implemented {files}. All tests pass and the feature works."
