"""``swarmgym plan --effect 0.1``: how many runs a comparison needs, from past disagreement.

The discordance rate ``psi`` (share of pairs where exactly one arm built a functional app) is
what a paired comparison's cost depends on.  It is read from the ledger: runs of two different
arms on the same adapter, suite hash, spec, seed and prompt set are a pair.  The seed and
adapter come from each record's provenance, or from its campaign plan when the record has none.
Without any pair in the ledger the default ``psi = 0.5`` is used (independent runs at a 50 %
pass rate: the most disagreement, so the most runs) and the output says so.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from swarmgym.campaigns.plan import load_campaign
from swarmgym.comparison import sequential
from swarmgym.comparison.compare import NOT_AN_OUTCOME, Arm
from swarmgym.config import Config
from swarmgym.core.errors import SwarmgymError, UsageError
from swarmgym.ledger import Ledger
from swarmgym.suitekit.suite import load_suite
from swarmgym.trend.arms import arm as arm_label

DEFAULT_PSI = 0.5


@dataclass
class History:
    pairs: int = 0
    discordant: int = 0
    by_arms: dict[tuple[str, str], list[int]] = field(default_factory=dict)   # (A, B) -> [pairs, discordant]

    @property
    def psi(self) -> float | None:
        return self.discordant / self.pairs if self.pairs else None


def history(cfg: Config, a: Arm | None = None, b: Arm | None = None) -> History:
    """Paired runs in the ledger (optionally only of arms ``a`` and ``b``)."""
    plans: dict[str, dict] = {}

    def planned(cid: str) -> dict:
        if cid not in plans:
            try:
                c = load_campaign(cfg, cid)
                plans[cid] = {"swarm": c.swarm, "seeds": {j.job_id: j.seed for j in c.jobs}}
            except SwarmgymError:
                plans[cid] = {"swarm": None, "seeds": {}}
        return plans[cid]

    cells: dict[tuple, dict[str, bool]] = {}
    for rec in Ledger(cfg.ledger_dir).records(kind="session"):
        if rec.mode != "benchmark" or rec.overall in NOT_AN_OUTCOME or not rec.suite_hash:
            continue
        prov, plan = rec.provenance, planned(rec.campaign_id)
        adapter = prov.adapter or plan["swarm"]
        seed = prov.seed if prov.seed is not None else plan["seeds"].get(rec.job_id)
        if adapter is None or seed is None:
            continue
        flags = prov.flags if prov.adapter else rec.flags
        label = arm_label(rec.variant, json.dumps(flags, sort_keys=True))
        key = (adapter, prov.suite_hash or rec.suite_hash, rec.spec, seed, rec.tier == "extreme")
        cells.setdefault(key, {}).setdefault(label, bool(rec.functional))
    want = {a.label, b.label} if a and b else None
    h = History()
    for arms in cells.values():
        for x, y in combinations(sorted(arms), 2):
            if want and {x, y} != want:
                continue
            cnt = h.by_arms.setdefault((x, y), [0, 0])
            cnt[0] += 1
            cnt[1] += arms[x] != arms[y]
            h.pairs += 1
            h.discordant += arms[x] != arms[y]
    return h


@dataclass
class Plan:
    effect: float
    alpha: float
    power: float
    psi: float
    psi_source: str
    fixed_runs: int | None
    seq_runs_mean: float | None
    seq_budget_runs: int | None
    history: History


def plan(cfg: Config, effect: float, *, alpha: float = 0.05, power: float = 0.8, a: Arm | None = None,
         b: Arm | None = None, experiments: int = 2000, seed: int = 0) -> Plan:
    if not 0 < effect < 1:
        raise UsageError(f"--effect: expected a pass-rate difference in (0, 1), got {effect}")
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise UsageError("--alpha and --power: expected numbers in (0, 1)")
    h = history(cfg, a, b)
    if h.psi is None:
        psi, source = DEFAULT_PSI, "default (no paired runs in the ledger)"
    else:
        psi, source = h.psi, f"ledger: {h.discordant} of {h.pairs} paired runs disagreed"
    if psi < effect:
        psi, source = effect, source + f"; raised to the effect {effect:g} (an effect needs that much disagreement)"
    fixed = sequential.fixed_pairs(psi, effect, alpha, power)
    per_round = len(load_suite(cfg.suite, cfg.suites_dir).specs)
    mean, budget = sequential_runs(psi, effect, alpha, power, experiments, seed,
                                   max_pairs=4 * fixed if fixed else 2000, per_round=per_round)
    return Plan(effect, alpha, power, psi, source, 2 * fixed if fixed else None, mean, budget, h)


def sequential_runs(psi: float, effect: float, alpha: float, power: float, experiments: int, seed: int,
                    max_pairs: int, per_round: int = 3) -> tuple[float | None, int | None]:
    """Expected runs of the sequential test (decision by the e-value; futility ignored) with the
    smallest budget that reaches ``power``, and that budget in runs (``per_round``: pairs per round,
    one per spec)."""
    rounds = max(10, -(-max_pairs // per_round))
    d = sequential.draw_pairs(np.random.default_rng(seed), psi, effect, (experiments, rounds * per_round))
    sim = sequential.simulate(d, per_round, alpha=alpha, min_effect=0.0, futility=False)
    hit = np.where(sim.decision == 0, sim.pairs // per_round, np.iinfo(np.int64).max)
    for cap in range(1, rounds + 1):
        if (hit <= cap).mean() >= power:
            used = np.minimum(hit, cap) * per_round
            return float(2 * used.mean()), 2 * cap * per_round
    return None, None
