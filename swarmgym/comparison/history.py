"""How often two arms' paired runs disagreed, from the ledger: what ``plan``, ``compare`` and ``tune`` size on.

Runs of two different arms meet on their evidence units (:mod:`swarmgym.trend.units`: same adapter, suite
hash, spec, seed and prompt set), repeats of a replaying swarm folded.  The seed and adapter come from each
record's provenance, or from its campaign plan when the record has none.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import combinations

from swarmgym.campaigns.plan import load_campaign
from swarmgym.comparison.arms import Arm
from swarmgym.config import Config
from swarmgym.core.errors import SwarmgymError
from swarmgym.ledger import Ledger
from swarmgym.trend.arms import arm as arm_label
from swarmgym.trend.units import Run, fold, pairs


@dataclass
class History:
    pairs: int = 0
    discordant: int = 0
    folded: int = 0
    by_arms: dict[tuple[str, str], list[int]] = field(default_factory=dict)   # (A, B) -> [pairs, discordant]

    @property
    def psi(self) -> float | None:
        return self.discordant / self.pairs if self.pairs else None

    def source(self) -> str:
        if self.psi is None:
            return "no paired runs in the ledger"
        return f"ledger: {self.discordant} of {self.pairs} paired runs disagreed"


def ledger_runs(cfg: Config) -> list[Run]:
    """Every graded benchmark run as a :class:`Run` labelled by its arm without the adapter (which is part of
    the unit's cell), seed and adapter filled from the campaign plan where the record lacks them."""
    plans: dict[str, dict] = {}

    def planned(cid: str) -> dict:
        if cid not in plans:
            try:
                c = load_campaign(cfg, cid)
                plans[cid] = {"swarm": c.swarm, "seeds": {j.job_id: j.seed for j in c.jobs}}
            except SwarmgymError:
                plans[cid] = {"swarm": None, "seeds": {}}
        return plans[cid]

    out = []
    for rec in Ledger(cfg.ledger_dir).records(kind="session"):
        if rec.mode != "benchmark" or not rec.suite_hash:
            continue
        prov = rec.provenance
        plan = planned(rec.campaign_id) if prov.seed is None or not prov.adapter else {"swarm": None, "seeds": {}}
        adapter = prov.adapter or plan["swarm"]
        seed = prov.seed if prov.seed is not None else plan["seeds"].get(rec.job_id)
        if adapter is None or seed is None:
            continue
        out.append(Run(arm=arm_label(rec.variant, json.dumps(rec.flags or {}, sort_keys=True)), adapter=adapter,
                       build=prov.build(), suite_hash=prov.suite_hash or rec.suite_hash, spec=rec.spec, seed=seed,
                       hard=rec.tier == "extreme", replays=prov.replays_seed, functional=bool(rec.functional),
                       overall=rec.overall, ts=rec.ts))
    return out


def history(cfg: Config, a: Arm | None = None, b: Arm | None = None) -> History:
    """Paired runs in the ledger (optionally only of arms ``a`` and ``b``)."""
    kept = fold(ledger_runs(cfg))
    by_arm: dict[str, list[Run]] = {}
    for r in kept.runs:
        by_arm.setdefault(r.arm, []).append(r)
    want = {a.label, b.label} if a and b else None
    h = History(folded=sum(kept.folded.values()))
    for x, y in combinations(sorted(by_arm), 2):
        if want and {x, y} != want:
            continue
        got = pairs(by_arm[x], by_arm[y])
        if not got:
            continue
        k = sum(1 for p, q in got if p != q)
        h.by_arms[(x, y)] = [len(got), k]
        h.pairs += len(got)
        h.discordant += k
    return h
