"""Work distribution as goose schedules it — shared by the cluster dimension, the exploratory
monitor and the campaign-level monitor.

goose's pool ``weight`` is an integer ≥ 1: the most tasks in flight on that device at once, and
the scheduler hands each ready task to the least-loaded device (DESIGN.md sections 4 and 6).  So
a device's expected share lies between an even split (a narrow plan: every device free, tasks
spread one by one) and a split by weight (a plan wide enough to fill every device's cap).  Its
*fair* share is the lower of the two: a heavy device on a small plan is not underused, a light
device on a wide one is not starved.

Evidence rule (one for starved, idle and underused): a device is flagged only when there was work
for every enabled device (tasks ≥ devices) and another device ran several (≥ 2).  Then
starved = 0 tasks, idle < 5 % of its fair share, underused < 50 %; any of those ⇒ unbalanced.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable

from swarmgym.models import Evidence, PoolDevice

IDLE, UNDERUSED = 0.05, 0.50
SEVERAL = 2
FLAGGED = ("starved", "idle", "underused")


def concurrency(weight: float | int | None) -> int:
    """A pool weight as goose means it: an integer cap ≥ 1 on tasks in flight."""
    try:
        return max(1, int(weight or 0))
    except (TypeError, ValueError):
        return 1


@dataclass
class Share:
    device: str
    host: str | None
    weight: int  # concurrency cap
    dispatched: int
    fair: float
    state: str  # starved | idle | underused | ok | disabled

    @property
    def ratio(self) -> float:
        return self.dispatched / self.fair if self.fair else 0.0

    def as_dict(self) -> dict:
        return {**asdict(self), "ratio": round(self.ratio, 3)}


def dispatched_per_device(evidence: Evidence) -> dict[str, int]:
    """Tasks dispatched per device: RunReport first, else the event log."""
    rep = evidence.report
    if rep and rep.dispatched_per_device:
        return dict(rep.dispatched_per_device)
    if rep and rep.per_device:
        return {d: s.dispatched for d, s in rep.per_device.items()}
    counts: dict[str, int] = {}
    for e in evidence.events:
        if e.get("event") == "task_dispatched" and e.get("device"):
            counts[e["device"]] = counts.get(e["device"], 0) + 1
    return counts


def shares(dispatched: dict[str, int], pool: Iterable[PoolDevice]) -> list[Share]:
    pool = list(pool) or [PoolDevice(id=d) for d in dispatched]
    known = {p.id for p in pool}
    pool += [PoolDevice(id=d) for d in dispatched if d not in known]
    enabled = [p for p in pool if p.enabled]
    caps = {p.id: concurrency(p.weight) for p in pool}
    total_cap = sum(caps[p.id] for p in enabled) or 1
    total = sum(dispatched.get(p.id, 0) for p in enabled)
    even = total / max(len(enabled), 1)
    evidence = total >= len(enabled)
    out = []
    for p in pool:
        n = dispatched.get(p.id, 0)
        if not p.enabled:
            out.append(Share(p.id, p.host, caps[p.id], n, 0.0, "disabled"))
            continue
        fair = min(even, caps[p.id] / total_cap * total)
        others = max((dispatched.get(q.id, 0) for q in enabled if q.id != p.id), default=0)
        state = "ok"
        if evidence and others >= SEVERAL:
            state = ("starved" if n == 0 else "idle" if n < IDLE * fair
                     else "underused" if n < UNDERUSED * fair else "ok")
        out.append(Share(p.id, p.host, caps[p.id], n, round(fair, 3), state))
    return out


def unbalanced(rows: list[Share]) -> bool:
    return any(r.state in FLAGGED for r in rows)
