"""Pass rates over time: per arm, one point per campaign, in the order the campaigns started.

Each point is a campaign's pass rate with its Wilson 95 % interval, labelled with the swarm build its runs
used (the binary's ``--version`` from provenance; the simulator adds its fleet hash) and the suite hash,
plus the verdict of its change detection when it has one (``LedgerRecord.change``).  ``swarmgym trend``
prints it, BENCHMARK.html draws it ("over time").  Runs that could not run at all (infra) count in no
pass rate, as everywhere else.
"""
from __future__ import annotations

import math
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Sequence

from swarmgym.core.errors import UsageError
from swarmgym.ledger import Ledger
from swarmgym.ledger.mapping import INFRA
from swarmgym.models import LedgerRecord
from swarmgym.trend import stats
from swarmgym.trend.arms import arm_of

_SPAN = re.compile(r"^(\d+(?:\.\d+)?)\s*([hdw])$")
UNIT = {"h": 3600, "d": 86400, "w": 7 * 86400}


@dataclass
class Rate:
    passes: int = 0
    runs: int = 0

    @property
    def rate(self) -> float:
        return self.passes / self.runs if self.runs else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        return stats.wilson(self.passes, self.runs)

    def json(self) -> dict[str, Any]:
        lo, hi = self.interval
        nan = math.isnan(self.rate)
        return {"passes": self.passes, "runs": self.runs, "rate": None if nan else round(self.rate, 4),
                "wilson95": None if nan else [round(lo, 4), round(hi, 4)]}


@dataclass
class Point:
    campaign_id: str
    started: float
    build: str | None
    suite: str | None
    suite_hash: str | None
    tier: str
    total: Rate = field(default_factory=Rate)
    specs: dict[str, Rate] = field(default_factory=dict)
    infra: int = 0
    verdict: str | None = None     # the campaign's change verdict (None: not assessed)
    reason: str = ""

    def json(self, with_specs: bool) -> dict[str, Any]:
        out = {"campaign_id": self.campaign_id, "started": self.started,
               "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)), "build": self.build,
               "suite": self.suite, "suite_hash": self.suite_hash, "tier": self.tier, **self.total.json(),
               "infra": self.infra, "verdict": self.verdict, "reason": self.reason}
        if with_specs:
            out["specs"] = {s: r.json() for s, r in sorted(self.specs.items())}
        return out


@dataclass
class ArmTrend:
    arm: str
    points: list[Point]

    def json(self, with_specs: bool) -> dict[str, Any]:
        return {"arm": self.arm, "campaigns": [p.json(with_specs) for p in self.points]}


def build(records: Iterable[LedgerRecord], campaigns: Iterable[LedgerRecord] = ()) -> list[ArmTrend]:
    """Arms (sorted) with their campaigns in start order, from benchmark session records and campaign records."""
    changes = {c.campaign_id: c.change for c in campaigns if c.kind == "campaign" and c.change is not None}
    points: dict[tuple[str, str], Point] = {}
    builds: dict[tuple[str, str], Counter] = {}
    for r in records:
        if r.kind != "session" or r.mode != "benchmark":
            continue
        key = (arm_of(r), r.campaign_id)
        pt = points.get(key)
        started = float(r.data.get("started") or r.ts)
        if pt is None:
            pt = points[key] = Point(r.campaign_id, started, None, r.suite, r.suite_hash, r.tier)
            builds[key] = Counter()
        pt.started = min(pt.started, started)
        builds[key][r.provenance.build() or ""] += 1
        if r.overall == INFRA:
            pt.infra += 1
            continue
        spec = pt.specs.setdefault(r.spec, Rate())
        spec.passes += int(r.functional)
        spec.runs += 1
        pt.total.passes += int(r.functional)
        pt.total.runs += 1
    by_arm: dict[str, list[Point]] = {}
    for (arm, cid), pt in points.items():
        pt.build = builds[(arm, cid)].most_common(1)[0][0] or None
        ch = changes.get(cid)
        if ch is not None:
            pt.verdict, pt.reason = ch.verdict, ch.reason
        by_arm.setdefault(arm, []).append(pt)
    return [ArmTrend(a, sorted(ps, key=lambda p: p.started)) for a, ps in sorted(by_arm.items())]


def parse_since(text: str | None, now: float | None = None) -> float | None:
    """``30d``, ``12h``, ``2w`` (before now) or a date ``2026-11-01`` (UTC) → unix time; None for None."""
    if not text:
        return None
    now = time.time() if now is None else now
    m = _SPAN.match(text.strip().lower())
    if m:
        return now - float(m.group(1)) * UNIT[m.group(2)]
    try:
        d = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(f"--since {text!r}: expected a span such as 30d, 12h or 2w, or a date such as 2026-11-01") from None
    return (d if d.tzinfo else d.replace(tzinfo=timezone.utc)).timestamp()


def load(ledger: Ledger, *, arm: str | None = None, since: float | None = None) -> list[ArmTrend]:
    """The trend of every arm (or of ``arm``; an unknown one is a usage error naming the known ones)."""
    arms = build(ledger.records(kind="session", mode="benchmark"), ledger.records(kind="campaign"))
    if arm is not None:
        known = [a.arm for a in arms]
        arms = [a for a in arms if a.arm == arm]
        if not arms:
            raise UsageError(f"--arm {arm!r}: no such arm in the ledger; known: {', '.join(known) or '(none)'}")
    if since is not None:
        arms = [ArmTrend(a.arm, [p for p in a.points if p.started >= since]) for a in arms]
    return arms


def known_arms(trends: Sequence[ArmTrend]) -> list[str]:
    return [a.arm for a in trends]
