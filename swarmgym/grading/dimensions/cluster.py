"""cluster: per-device distribution from the fleet log + RunReport, joined with host load.

Fair shares and the evidence rule are :mod:`swarmgym.grading.balance`'s (goose's weights: concurrency
caps).  One run never raises a high-severity alarm: a starved device here is ``medium``; the
campaign monitor raises ``high`` only on evidence from several jobs.
"""
from __future__ import annotations

from statistics import mean

from swarmgym.grading.balance import dispatched_per_device, shares, unbalanced
from swarmgym.grading.context import GradingContext
from swarmgym.models import DimensionResult, Finding, Severity, Status

IDLE_HOST_CPU = 25.0  # mean host CPU % under which a host counts as sitting idle

HINTS = {  # goose's weight is a cap on tasks in flight (an integer >= 1), not a share
    "starved": "goose gives each ready task to the least-loaded device: check this one is enabled "
               "(`swarm pool enable DEV`), reachable and its model loads",
    "idle": "check its model answers (failures and retries move its tasks elsewhere) and the planner's task "
            "sizing keeps every device fed",
    "underused": "if its tasks queue behind its cap raise its weight (`swarm pool weight DEV N`, N = max tasks "
                 "in flight), or turn on GOOSE_SWARM_SPLIT so big tasks split across devices",
}
SEVERITY: dict[str, Severity] = {"starved": "medium", "idle": "medium", "underused": "low"}


def cluster_dimension(ctx: GradingContext) -> DimensionResult:
    ev = ctx.evidence
    if ev is None or (ev.run is not None and not ev.run.has_fleet_log) or (ev.report is None and not ev.events):
        return DimensionResult(name="cluster", status="n/a", summary="no fleet log for this run")
    dispatched = dispatched_per_device(ev)
    rows = shares(dispatched, ev.pool)
    rep = ev.report
    retries = sum(s.retries for s in rep.per_device.values()) if rep else 0
    retries = retries or ev.event_counts.get("task_retry", 0)
    mcp = sum(s.mcp_calls for s in rep.per_device.values()) if rep else 0
    host_cpu = round(mean(s.cpu_percent for s in ctx.samples), 1) if ctx.samples else None
    findings, idle_nodes = [], []
    for r in rows:
        if r.state not in HINTS:
            continue
        idle_nodes.append(r.device)
        confirmed = (host_cpu is not None and host_cpu < IDLE_HOST_CPU
                     and (r.host is None or ev.host is None or r.host == ev.host))
        msg = f"device {r.device} {r.state}: {r.dispatched} task(s) vs fair share {r.fair:.1f}"
        if confirmed:
            msg += f" — confirmed idle: host {ev.host or r.host} averaged {host_cpu}% CPU"
        findings.append(Finding(severity=SEVERITY[r.state], dimension="cluster", message=msg, hint=HINTS[r.state]))
    if retries:
        findings.append(Finding(severity="info", dimension="cluster", message=f"{retries} task retr(ies) in the run",
                                hint="retries cost wall time; read task_retry events for the failing device"))
    status: Status = ("fail" if any(r.state == "starved" for r in rows) else "partial" if unbalanced(rows) else "pass")
    summary = ", ".join(f"{r.device}={r.dispatched}" for r in rows) or "no tasks dispatched"
    return DimensionResult(name="cluster", status=status, summary=summary + (" (unbalanced)" if unbalanced(rows) else ""),
                           findings=findings,
                           data={"per_device": dispatched, "shares": [r.as_dict() for r in rows],
                                 "unbalanced": unbalanced(rows), "idle_nodes": idle_nodes, "retries": retries,
                                 "mcp_calls": mcp, "host_cpu_mean": host_cpu, "host_samples": len(ctx.samples)})
