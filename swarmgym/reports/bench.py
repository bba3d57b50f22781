"""Benchmark aggregation: ledger rows -> per variant x suite-hash groups and head-to-heads.

Only ``kind="session"``, ``mode="benchmark"`` records count.  Rows are read as raw index columns
(no per-record pydantic parsing) so a 100k-record ledger aggregates in well under a second.

An arm is the adapter, the variant and the swarm flags in effect (see :func:`arm`): simulated and
real runs of one variant are never pooled and never compared with each other.  Runs that could not
run at all (``overall="infra"``) are kept apart and count in no pass rate.
Pairing rule: two variants are compared only on the same suite hash.  Within a spec, the i-th
run of variant A (in ledger time order) is paired with the i-th run of B: with one campaign per
variant that is exactly the (spec, rep) pairing; unmatched extra runs are left out of McNemar.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

from swarmgym.ledger import Ledger
from swarmgym.ledger.mapping import INFRA
from swarmgym.trend import stats
from swarmgym.trend.arms import arm

COLUMNS = ("variant", "tier", "spec", "app_slug", "session_id", "wall_secs", "functional", "overall",
           "checks", "swarm", "cluster", "diagnostics", "tasks_done", "tasks_failed", "exit_code",
           "suite", "suite_hash", "campaign_id", "flags", "ts", "adapter", "seed", "host")
IDX = {c: i for i, c in enumerate(COLUMNS)}
NO_HASH = "(none)"
PASS_AT_KS = (1, 3, 5, 10)


@dataclass
class SpecStats:
    spec: str
    app_slug: str = ""
    outcomes: list[bool] = field(default_factory=list)
    walls: list[float] = field(default_factory=list)
    overall: Counter = field(default_factory=Counter)

    @property
    def runs(self) -> int:
        return len(self.outcomes)

    @property
    def passes(self) -> int:
        return sum(self.outcomes)

    @property
    def rate(self) -> float:
        return self.passes / self.runs if self.runs else math.nan


@dataclass
class Group:
    variant: str  # the arm's label (see swarmgym.trend.arms.arm())
    suite_hash: str
    adapter: str = ""
    suites: set[str] = field(default_factory=set)
    specs: dict[str, SpecStats] = field(default_factory=dict)
    tiers: Counter = field(default_factory=Counter)
    flags: Counter = field(default_factory=Counter)
    campaigns: set[str] = field(default_factory=set)
    walls: list[float] = field(default_factory=list)
    overall: Counter = field(default_factory=Counter)

    @property
    def runs(self) -> int:
        return sum(s.runs for s in self.specs.values())

    @property
    def passes(self) -> int:
        return sum(s.passes for s in self.specs.values())

    @property
    def label(self) -> str:
        return f"{self.variant} @ {self.suite_hash}"


@dataclass
class SpecDiff:
    spec: str
    a: SpecStats
    b: SpecStats

    @property
    def diff(self) -> float:
        return self.a.rate - self.b.rate


@dataclass
class HeadToHead:
    a: Group
    b: Group
    shared: list[SpecDiff]
    only_a: list[str]
    only_b: list[str]
    mean: float
    se: float
    sign: stats.SignTest
    mcnemar: stats.McNemar
    pass_at: dict[int, tuple[float, float]]


@dataclass
class Unpaired:
    """Two variants that only ran on different suite hashes: never compared."""

    a: str
    b: str
    hashes_a: list[str]
    hashes_b: list[str]


@dataclass
class BenchData:
    rows: list[tuple]
    groups: list[Group]
    head_to_head: list[HeadToHead]
    unpaired: list[Unpaired]
    hashes: dict[str, list[str]]   # suite hash -> variants that ran on it
    infra: list[tuple] = field(default_factory=list)  # runs that could not run: in no pass rate

    @property
    def infra_by_arm(self) -> Counter:
        return Counter(arm(r[IDX["variant"]], r[IDX["flags"]], r[IDX["adapter"]]) for r in self.infra)

    @property
    def mixed_hashes(self) -> bool:
        return len(self.hashes) > 1


def load_rows(ledger: Ledger) -> list[tuple]:
    return ledger.columns(COLUMNS, kind="session", mode="benchmark")


def aggregate(rows: list[tuple]) -> BenchData:
    groups: dict[tuple[str, str], Group] = {}
    infra = []
    for r in rows:
        if r[IDX["overall"]] == INFRA:
            infra.append(r)
            continue
        key = (arm(r[IDX["variant"]], r[IDX["flags"]], r[IDX["adapter"]]), r[IDX["suite_hash"]] or NO_HASH)
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(*key, adapter=r[IDX["adapter"]] or "")
        spec = r[IDX["spec"]] or ""
        s = g.specs.get(spec)
        if s is None:
            s = g.specs[spec] = SpecStats(spec, r[IDX["app_slug"]] or "")
        ok = bool(r[IDX["functional"]])
        wall = r[IDX["wall_secs"]]
        s.outcomes.append(ok)
        s.overall[r[IDX["overall"]]] += 1
        g.overall[r[IDX["overall"]]] += 1
        if wall is not None:
            s.walls.append(wall)
            g.walls.append(wall)
        g.tiers[r[IDX["tier"]]] += 1
        g.flags[r[IDX["flags"]] or "{}"] += 1
        if r[IDX["suite"]]:
            g.suites.add(r[IDX["suite"]])
        g.campaigns.add(r[IDX["campaign_id"]])
    ordered = sorted(groups.values(), key=lambda g: (g.suite_hash, g.variant))
    hashes: dict[str, list[str]] = {}
    for g in ordered:
        hashes.setdefault(g.suite_hash, []).append(g.variant)
    h2h = [compare(a, b) for h, vs in hashes.items() if h != NO_HASH
           for a, b in combinations([g for g in ordered if g.suite_hash == h], 2) if a.adapter == b.adapter]
    by_variant: dict[str, set[str]] = {}
    for g in ordered:
        by_variant.setdefault(g.variant, set()).add(g.suite_hash)
    adapter_of = {g.variant: g.adapter for g in ordered}
    unpaired = [Unpaired(a, b, sorted(by_variant[a]), sorted(by_variant[b]))
                for a, b in combinations(sorted(by_variant), 2)
                if adapter_of[a] == adapter_of[b] and not (by_variant[a] & by_variant[b]) - {NO_HASH}]
    return BenchData(rows, ordered, h2h, unpaired, hashes, infra)


def compare(a: Group, b: Group) -> HeadToHead:
    shared = [SpecDiff(s, a.specs[s], b.specs[s]) for s in sorted(a.specs.keys() & b.specs.keys())]
    diffs = [d.diff for d in shared]
    mean, se = stats.mean_se(diffs)
    pairs = [(x, y) for d in shared for x, y in zip(d.a.outcomes, d.b.outcomes)]
    min_n = min((min(d.a.runs, d.b.runs) for d in shared), default=0)
    pass_at = {}
    for k in PASS_AT_KS:
        if shared and k <= min_n:
            pa = sum(stats.pass_at_k(d.a.runs, d.a.passes, k) for d in shared) / len(shared)
            pb = sum(stats.pass_at_k(d.b.runs, d.b.passes, k) for d in shared) / len(shared)
            pass_at[k] = (pa, pb)
    return HeadToHead(a, b, shared, sorted(a.specs.keys() - b.specs.keys()),
                      sorted(b.specs.keys() - a.specs.keys()), mean, se, stats.sign_test(diffs),
                      stats.mcnemar(pairs), pass_at)
