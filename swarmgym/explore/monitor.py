"""The monitor: how was work spread across the fleet in a session?

Per turn and for the whole session it flags devices as starved (0 tasks), idle (< 5 % of their
weighted fair share) or underused (< 50 %), and the session as unbalanced if any of those hold.
The arithmetic is :mod:`swarmgym.grading.balance`, shared with the cluster dimension.
"""
from __future__ import annotations

from typing import Iterable

from pydantic import BaseModel, Field

from swarmgym.grading.balance import shares
from swarmgym.models import Finding, PoolDevice, Severity, Turn

SEVERITY: dict[str, Severity] = {"starved": "medium", "idle": "medium", "underused": "low"}
HINTS = {
    "starved": "raise its weight (swarm pool weight <dev> <w>) or enable it (swarm pool enable <dev>); check it is reachable",
    "idle": "raise its weight or lower the others'; check its model loads and answers",
    "underused": "raise its weight a little, or check whether its tasks keep failing and being retried elsewhere",
}


class MonitorReport(BaseModel):
    per_device: dict[str, int] = Field(default_factory=dict)
    devices: list[dict] = Field(default_factory=list)
    starved: list[str] = Field(default_factory=list)
    idle: list[str] = Field(default_factory=list)
    underused: list[str] = Field(default_factory=list)
    unbalanced: bool = False
    findings: list[Finding] = Field(default_factory=list)

    @property
    def flagged(self) -> list[str]:
        return self.starved + self.idle + self.underused

    def line(self) -> str:
        if not self.per_device:
            return "no fleet data"
        parts = [f"{k}: {', '.join(v)}" for k, v in
                 (("starved", self.starved), ("idle", self.idle), ("underused", self.underused)) if v]
        return ("unbalanced — " + "; ".join(parts)) if parts else "balanced"


def monitor(per_device: dict[str, int], pool: Iterable[PoolDevice] = ()) -> MonitorReport:
    """Judge one distribution of dispatched tasks against the pool's weights."""
    rows = shares(dict(per_device), list(pool))
    rep = MonitorReport(per_device=dict(per_device), devices=[r.as_dict() for r in rows])
    for r in rows:
        if r.state in SEVERITY:
            getattr(rep, r.state).append(r.device)
            pct = f"{r.ratio:.0%} of" if r.fair else "no"
            rep.findings.append(Finding(severity=SEVERITY[r.state], dimension="monitor",
                                        message=f"device {r.device} is {r.state}: {r.dispatched} task(s), {pct} "
                                                f"its fair share {r.fair:g} (weight {r.weight:g})",
                                        hint=HINTS[r.state]))
    rep.unbalanced = bool(rep.flagged)
    if rep.unbalanced:
        rep.findings.append(Finding(severity="info", dimension="monitor", message="session is unbalanced",
                                    hint="--tweak lets the tweaker rebalance the pool and re-run"))
    return rep


def monitor_turn(turn: Turn) -> MonitorReport:
    return monitor(turn.per_device, turn.pool)


def monitor_session(turns: list[Turn]) -> MonitorReport:
    """The session view: task totals over all turns, and every device any turn flagged (worst state wins).

    A device starved in turn 1 stays a finding even if a tweak fixed it in the re-run.
    """
    total: dict[str, int] = {}
    for t in turns:
        for dev, n in t.per_device.items():
            total[dev] = total.get(dev, 0) + int(n)
    pool = next((t.pool for t in reversed(turns) if t.pool), [])
    out = MonitorReport(per_device=total, devices=monitor(total, pool).devices)
    worst: dict[str, str] = {}
    for t in turns:
        rep = monitor_turn(t)
        for state in ("starved", "idle", "underused"):
            for dev in getattr(rep, state):
                if dev not in worst:
                    worst[dev] = state
        out.findings += [f.model_copy(update={"message": f"turn {t.n}: {f.message}"})
                         for f in rep.findings if f.severity != "info"]
    for dev, state in worst.items():
        getattr(out, state).append(dev)
    out.unbalanced = bool(worst)
    if out.unbalanced:
        out.findings.append(Finding(severity="info", dimension="monitor", message="session is unbalanced",
                                    hint="--tweak lets the tweaker rebalance the pool and re-run"))
    return out
