"""Hand-built :class:`~swarmgym.models.Evidence` for the verify tests: a run of tasks over devices."""
from __future__ import annotations

from swarmgym.models import (
    DeviceStats,
    Evidence,
    PoolDevice,
    RunOutcome,
    RunReport,
    SessionTrace,
    TaskOutcome,
    ToolCall,
)


def make_evidence(ws, *, dispatched=None, pool=None, tasks=None, traces=None, exit_code=0, timed_out=False,
                  host=None, samples=()):
    dispatched = dispatched if dispatched is not None else {"a": 2, "b": 2}
    tasks = tasks if tasks is not None else [
        TaskOutcome(task_id=f"t{i}", status="done", device=d, model=f"m-{d}", attempts=1, session_id=f"s{i}",
                    tool_calls=[ToolCall(name="developer__text_editor", ok=True)])
        for i, d in enumerate(dev for dev, n in dispatched.items() for _ in range(n))]
    rep = RunReport(done=[t.task_id for t in tasks if t.status == "done"],
                    failed=[t.task_id for t in tasks if t.status == "failed"],
                    dispatched_per_device=dispatched,
                    per_device={d: DeviceStats(dispatched=n) for d, n in dispatched.items()}, tasks=tasks)
    traces = traces if traces is not None else {
        t.session_id: SessionTrace(session_id=t.session_id, messages=4, tool_calls=list(t.tool_calls)) for t in tasks}
    run = RunOutcome(adapter="sim", exit_code=exit_code, report=rep, report_source="stdout", timed_out=timed_out)
    return Evidence(workspace=str(ws), run=run, events=[{"event": "run_started"}],
                    pool=pool if pool is not None else [PoolDevice(id=d, weight=1) for d in dispatched],
                    traces=traces, host=host, host_samples=list(samples))
