"""Work distribution against weighted fair share — shared by the cluster dimension,
the exploratory monitor and the campaign-level monitor.

fair share of a device = its weight / total weight of enabled devices x tasks dispatched;
starved = 0 tasks, idle < 5 % of fair share, underused < 50 %; any of those ⇒ unbalanced.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable

from swarmgym.models import Evidence, PoolDevice

IDLE, UNDERUSED = 0.05, 0.50


@dataclass
class Share:
    device: str
    host: str | None
    weight: float
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
    enabled = [p for p in pool if p.enabled and p.weight > 0]
    total_w = sum(p.weight for p in enabled) or 1.0
    total = sum(dispatched.values())
    out = []
    for p in pool:
        n = dispatched.get(p.id, 0)
        if not p.enabled:
            out.append(Share(p.id, p.host, p.weight, n, 0.0, "disabled"))
            continue
        fair = p.weight / total_w * total if p.weight > 0 else total / max(len(pool), 1)
        state = ("starved" if n == 0 else "idle" if n < IDLE * fair
                 else "underused" if n < UNDERUSED * fair else "ok") if total else "ok"
        out.append(Share(p.id, p.host, p.weight, n, round(fair, 3), state))
    return out


def unbalanced(rows: list[Share]) -> bool:
    return any(r.state in ("starved", "idle", "underused") for r in rows)
