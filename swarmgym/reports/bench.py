"""Benchmark aggregation: ledger rows -> per arm x suite-hash groups and head-to-heads.

Only ``kind="session"``, ``mode="benchmark"`` records count.  Rows are read as raw index columns
(no per-record pydantic parsing) so a 100k-record ledger aggregates in well under a second.

An arm is the adapter, the variant and the swarm flags in effect (see :func:`arm`): simulated and
real runs of one variant are never pooled and never compared with each other.  Runs that could not
run at all (``overall="infra"``) are kept apart and count in no pass rate.  Evidence counts once
(:mod:`swarmgym.trend.units`): a repeated run of a unit on a swarm that replays seeds is folded (counted
in ``Group.folded``, in no rate); two arms are compared only on the same suite hash and adapter, their
runs paired on (spec, seed, prompt set) — never on the order they were recorded in — and the head-to-head
says it as :class:`~swarmgym.trend.answer.Answer`: the second arm minus the first.
"""
from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

from swarmgym.ledger import Ledger
from swarmgym.ledger.mapping import INFRA
from swarmgym.trend import answer, stats
from swarmgym.trend.arms import arm
from swarmgym.trend.units import Run, fold, pairs

COLUMNS = ("variant", "tier", "spec", "app_slug", "session_id", "wall_secs", "functional", "overall",
           "checks", "swarm", "cluster", "diagnostics", "tasks_done", "tasks_failed", "exit_code",
           "suite", "suite_hash", "campaign_id", "flags", "ts", "adapter", "seed", "host", "build", "replays",
           "failure")
IDX = {c: i for i, c in enumerate(COLUMNS)}
NO_HASH = "(none)"
PASS_AT_KS = (1, 3, 5, 10)
UNCLASSIFIED = "unclassified"   # records older than failure classes (ledger schema < 3)


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
class Failures:
    """Why an arm's runs failed: runs per failure class, failing requirements, starved devices."""

    kinds: Counter = field(default_factory=Counter)          # class -> runs
    requirements: Counter = field(default_factory=Counter)   # requirement -> failed runs it failed in
    starved: Counter = field(default_factory=Counter)        # device -> runs it got no task in
    runs: int = 0

    def add(self, failure_json: str | None) -> None:
        self.runs += 1
        if not failure_json:
            self.kinds[UNCLASSIFIED] += 1
            return
        if '"kind":"ok"' in failure_json and '"starved":[]' in failure_json:   # most runs: no JSON to parse
            self.kinds["ok"] += 1
            return
        f = json.loads(failure_json)
        self.kinds[f.get("kind", UNCLASSIFIED)] += 1
        self.requirements.update(f.get("requirements") or [])
        self.starved.update(f.get("starved") or [])

    def json(self, top: int = 10) -> dict:
        return {"runs": self.runs, "classes": dict(self.kinds.most_common()),
                "top_requirements": self.requirements.most_common(top), "starved_devices": dict(self.starved)}


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
    raw_variants: Counter = field(default_factory=Counter)
    runs_kept: list[Run] = field(default_factory=list)
    folded: int = 0                      # repeated runs of a replaying swarm, counted once
    failures: Failures = field(default_factory=Failures)

    @property
    def runs(self) -> int:
        return sum(s.runs for s in self.specs.values())

    @property
    def passes(self) -> int:
        return sum(s.passes for s in self.specs.values())

    @property
    def label(self) -> str:
        return f"{self.variant} @ {self.suite_hash}"

    @property
    def spec_arg(self) -> str:
        """The arm as ``swarmgym compare`` takes it: ``variant[:FLAG=V,…]``."""
        variant = self.raw_variants.most_common(1)[0][0] if self.raw_variants else self.variant
        flags = json.loads(self.flags.most_common(1)[0][0]) if self.flags else {}
        return variant + (":" + ",".join(f"{k}={v}" for k, v in sorted(flags.items())) if flags else "")


@dataclass
class SpecDiff:
    spec: str
    a: SpecStats
    b: SpecStats

    @property
    def diff(self) -> float:
        """B minus A: the second arm's pass rate minus the first's."""
        return self.b.rate - self.a.rate


@dataclass
class ClassDiff:
    """One failure class, arm A against arm B: runs of the class, and B's rate minus A's with a Newcombe interval."""

    kind: str
    a: int
    a_runs: int
    b: int
    b_runs: int
    diff: float
    lo: float
    hi: float


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
    answer: answer.Answer
    failures: list[ClassDiff] = field(default_factory=list)


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
    kept: list[tuple] = field(default_factory=list)   # rows with repeated units of replaying swarms folded

    @property
    def infra_by_arm(self) -> Counter:
        return Counter(arm(r[IDX["variant"]], r[IDX["flags"]], r[IDX["adapter"]]) for r in self.infra)

    @property
    def mixed_hashes(self) -> bool:
        return len(self.hashes) > 1

    @property
    def folded(self) -> int:
        return sum(g.folded for g in self.groups)


def load_rows(ledger: Ledger) -> list[tuple]:
    return ledger.columns(COLUMNS, kind="session", mode="benchmark")


def _run(i: int, r: tuple) -> Run:
    return Run(arm=arm(r[IDX["variant"]], r[IDX["flags"]], r[IDX["adapter"]]), adapter=r[IDX["adapter"]] or "",
               build=r[IDX["build"]], suite_hash=r[IDX["suite_hash"]] or NO_HASH, spec=r[IDX["spec"]] or "",
               seed=r[IDX["seed"]], hard=r[IDX["tier"]] == "extreme", replays=bool(r[IDX["replays"]]),
               functional=bool(r[IDX["functional"]]), overall=r[IDX["overall"]], ts=r[IDX["ts"]] or 0.0, ref=i)


def aggregate(rows: list[tuple], *, min_effect: float = answer.MIN_EFFECT) -> BenchData:
    graded = [(i, r) for i, r in enumerate(rows) if r[IDX["overall"]] != INFRA]
    infra = [r for r in rows if r[IDX["overall"]] == INFRA]
    kept = fold(_run(i, r) for i, r in graded)
    groups: dict[tuple[str, str], Group] = {}
    for run in kept.runs:
        r = rows[run.ref]
        key = (run.arm, run.suite_hash or NO_HASH)
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
        g.raw_variants[r[IDX["variant"]]] += 1
        if r[IDX["suite"]]:
            g.suites.add(r[IDX["suite"]])
        g.campaigns.add(r[IDX["campaign_id"]])
        g.runs_kept.append(run)
        g.failures.add(r[IDX["failure"]])
    for run in kept.dropped:
        if (run.arm, run.suite_hash or NO_HASH) in groups:
            groups[(run.arm, run.suite_hash or NO_HASH)].folded += 1
    ordered = sorted(groups.values(), key=lambda g: (g.suite_hash, g.variant))
    hashes: dict[str, list[str]] = {}
    for g in ordered:
        hashes.setdefault(g.suite_hash, []).append(g.variant)
    h2h = [compare(a, b, min_effect=min_effect) for h, vs in hashes.items() if h != NO_HASH
           for a, b in combinations([g for g in ordered if g.suite_hash == h], 2) if a.adapter == b.adapter]
    by_variant: dict[str, set[str]] = {}
    for g in ordered:
        by_variant.setdefault(g.variant, set()).add(g.suite_hash)
    adapter_of = {g.variant: g.adapter for g in ordered}
    unpaired = [Unpaired(a, b, sorted(by_variant[a]), sorted(by_variant[b]))
                for a, b in combinations(sorted(by_variant), 2)
                if adapter_of[a] == adapter_of[b] and not (by_variant[a] & by_variant[b]) - {NO_HASH}]
    kept_rows = sorted([rows[run.ref] for run in kept.runs] + infra, key=lambda r: (r[IDX["ts"]] or 0.0))
    return BenchData(rows, ordered, h2h, unpaired, hashes, infra, kept_rows)


def compare(a: Group, b: Group, *, min_effect: float = answer.MIN_EFFECT) -> HeadToHead:
    """B (the second group) against A: per-spec differences B − A, and the answer on the runs paired on units."""
    shared = [SpecDiff(s, a.specs[s], b.specs[s]) for s in sorted(a.specs.keys() & b.specs.keys())]
    diffs = [d.diff for d in shared]
    mean, se = stats.mean_se(diffs)
    paired = pairs(a.runs_kept, b.runs_kept)
    min_n = min((min(d.a.runs, d.b.runs) for d in shared), default=0)
    pass_at = {}
    for k in PASS_AT_KS:
        if shared and k <= min_n:
            pa = sum(stats.pass_at_k(d.a.runs, d.a.passes, k) for d in shared) / len(shared)
            pb = sum(stats.pass_at_k(d.b.runs, d.b.passes, k) for d in shared) / len(shared)
            pass_at[k] = (pa, pb)
    discordant = sum(1 for x, y in paired if x != y)
    suite = sorted(a.suites & b.suites)
    budget = answer.next_budget(discordant, len(paired), per_round=max(1, len(shared)), min_effect=min_effect)
    cmd = answer.compare_command(a.spec_arg, b.spec_arg, budget, swarm=a.adapter or None,
                                 suite=suite[0] if suite else None)
    ans = answer.pooled(a.variant, b.variant, paired, runs=2 * len(paired), folded=a.folded + b.folded,
                        min_effect=min_effect, next_command=cmd)
    return HeadToHead(a, b, shared, sorted(a.specs.keys() - b.specs.keys()), sorted(b.specs.keys() - a.specs.keys()),
                      mean, se, stats.sign_test(diffs), stats.mcnemar(paired), pass_at, ans, failure_diff(a, b))


def failure_diff(a: Group, b: Group) -> list[ClassDiff]:
    """Per failure class seen in either arm: B's share of runs in it minus A's, with a Newcombe 95 % interval."""
    out = []
    for kind in sorted((a.failures.kinds | b.failures.kinds).keys() - {"ok"}):
        ka, na, kb, nb = a.failures.kinds[kind], a.failures.runs, b.failures.kinds[kind], b.failures.runs
        lo, hi = stats.newcombe(kb, nb, ka, na)
        out.append(ClassDiff(kind, ka, na, kb, nb, (kb / nb if nb else math.nan) - (ka / na if na else math.nan), lo, hi))
    return out
