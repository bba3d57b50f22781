"""The simulated timeline of one run: attempts, devices, durations and tool calls per task.

Dispatch follows goose's scheduler (goose-swarm ``scheduler.rs``): a device's ``weight`` is the
most tasks it holds in flight at once; a ready task (its deps finished) goes to the least-loaded
free device, then the one with fewer dispatches so far, a retry avoids the device that failed
it, and ready tasks are taken highest fan-out first, then by id.  Everything random is drawn up
front from per-purpose seeded streams with a fixed number of draws per task, so the same seed
gives the same timeline whatever the faults, flags or pool.
"""
from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field
from typing import Any

from swarmgym.sim.fleet import Device
from swarmgym.sim.plan import Task

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
    outcome: str  # goose's AttemptRecord.outcome: ok | transient | terminal
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


def capacity(d: Device) -> int:
    """goose's weight: the most tasks in flight on the device at once (0 = never picked)."""
    return max(0, int(d.weight))


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


@dataclass
class _Plan:
    fails: int
    status: str
    err_u: float
    durs: list[float]
    calls: list[dict[str, Any]]


def _draw(tasks: list[Task], rngs: dict[str, random.Random], *, retry_rate: float, bad_tool_rate: float,
          max_attempts: int, mcp: list[str], slug: str, crash_task: str | None) -> dict[str, _Plan]:
    plans = {}
    for i, task in enumerate(tasks):
        p = rngs["plan"]
        u_retry, u_crash, u_err = p.random(), p.random(), p.random()
        durs = [p.random() for _ in range(max_attempts + 1)]
        mcp_here = [m for j, m in enumerate(mcp) if j % len(tasks) == i]
        calls = _tool_calls(task, rngs["tools"], bad_tool_rate, mcp_here, slug)
        status = "done"
        if task.task_id == crash_task:
            fails = max_attempts if u_crash < 0.5 else 1
            status = "failed" if fails == max_attempts else "salvaged"
        else:
            fails = 1 if (u_retry < retry_rate and max_attempts > 1) else 0
        plans[task.task_id] = _Plan(fails, status, u_err, durs, calls)
    return plans


def schedule(tasks: list[Task], devices: list[Device], variant: str, *, minutes: float, retry_rate: float,
             bad_tool_rate: float, max_attempts: int, rngs: dict[str, random.Random], mcp: list[str], slug: str,
             crash_task: str | None = None, narrator_task: str | None = None, start: float = 0.5) -> list[TaskRun]:
    """Dispatch ``tasks`` over ``devices`` as goose does and time every attempt (simulated minutes)."""
    plans = _draw(tasks, rngs, retry_rate=retry_rate, bad_tool_rate=bad_tool_rate, max_attempts=max_attempts,
                  mcp=mcp, slug=slug, crash_task=crash_task)
    live = [d for d in devices if capacity(d) > 0]
    runs = {t.task_id: TaskRun(task=t, status=plans[t.task_id].status) for t in tasks}
    by_id = {t.task_id: t for t in tasks}
    fan_out = {t.task_id: sum(t.task_id in o.deps for o in tasks) for t in tasks}
    in_flight = {d.id: 0 for d in live}
    dispatched = {d.id: 0 for d in live}
    speed: dict[str, list[float]] = {}
    avoid: dict[str, str] = {}
    finished: set[str] = set()
    ready = {t.task_id for t in tasks if not t.deps}
    heap: list[tuple[float, int, str]] = []
    now, seq = start, 0

    def pick(tid: str) -> Device | None:
        free = [d for d in live if in_flight[d.id] < capacity(d)]
        allowed = [d for d in free if d.id != avoid.get(tid)] or free
        if not allowed:
            return None
        hard = by_id[tid].difficulty == "hard"

        def key(ix_d: tuple[int, Device]) -> tuple[int, float, int, int]:
            i, d = ix_d
            seen = speed.get(d.id)
            pace = (sum(seen) / len(seen) if seen else 1e9) if hard else 0.0
            return (in_flight[d.id], pace, dispatched[d.id] * 1000, i)
        return min(enumerate(allowed), key=key)[1]

    while live:
        for tid in sorted(ready, key=lambda x: (-fan_out[x], x)):
            dev = pick(tid)
            if dev is None:
                continue
            ready.discard(tid)
            plan, run = plans[tid], runs[tid]
            n = len(run.attempts)
            end = now + minutes * dev.speed * (0.6 + 0.9 * plan.durs[n])
            total = plan.fails if run.status == "failed" else plan.fails + 1
            failed = n < plan.fails
            if not failed:
                outcome, err = "ok", None
            else:
                outcome = "terminal" if n + 1 == total else "transient"
                err = ("integrate check: the entry point raised an exception" if tid == crash_task
                       else RETRY_ERRORS[int(plan.err_u * len(RETRY_ERRORS))])
            run.attempts.append(Attempt(dev, dev.model_for(variant), round(now, 4), round(end, 4), outcome, err))
            in_flight[dev.id] += 1
            dispatched[dev.id] += 1
            heapq.heappush(heap, (round(end, 4), seq, tid))
            seq += 1
        if not heap:
            break
        now, _, tid = heapq.heappop(heap)
        run = runs[tid]
        a = run.final
        in_flight[a.device.id] -= 1
        speed.setdefault(a.device.id, []).append(a.end - a.start)
        if a.outcome == "transient":
            avoid[tid] = a.device.id
            ready.add(tid)
            continue
        finished.add(tid)
        for t in tasks:
            if t.task_id not in finished and t.task_id not in ready and not runs[t.task_id].attempts \
                    and all(d in finished for d in t.deps):
                ready.add(t.task_id)
    out = []
    for t in tasks:
        run = runs[t.task_id]
        if not run.attempts:
            continue
        run.calls = plans[t.task_id].calls
        if t.task_id == narrator_task:
            run.narrated, run.calls = True, []
        if run.status == "failed":
            run.calls = [c for c in run.calls if c["name"] == "developer__text_editor"] + [
                {"name": "developer__shell", "arguments": {"command": f"python3 -m {slug} --help"}, "ok": False,
                 "output": "Traceback (most recent call last): … RuntimeError"}]
        run.output = _output(run)
        out.append(run)
    return out


def _output(tr: TaskRun) -> str:
    files = ", ".join(tr.task.files) or "the app"
    if tr.status == "failed":
        return f"Could not finish {tr.task.task_id}: {tr.final.error}."
    if tr.status == "salvaged":
        return f"Partially implemented {files}; kept the work so far."
    return f"Implemented {files}. All tests pass and the feature works."
