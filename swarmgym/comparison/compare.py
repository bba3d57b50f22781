"""``swarmgym compare A B``: paired rounds until the sequential test decides (docs/compare.md).

One round runs every spec of the suite once per arm, with the same seed for both arms of a
pair.  Each arm's round is an ordinary campaign (``<compare_id>-rNN-a|b``, planned by
:func:`swarmgym.campaigns.plan.plan_jobs`), run in-process by :func:`swarmgym.campaigns.bench.run_campaign` or
sent to the fleet with :func:`swarmgym.queue.dispatch.send_jobs` — so every run lands in the
ledger as usual and ``bench --resume`` / ``swarmgym resume`` finish a round cut short.  Outcomes
are read back from whoever recorded them (this home's ledger, or the coordinator's through the
broker: the round runner says); the state after each round is saved in
``runs/compares/<compare_id>.json`` and drawn in ``runs/compare-<compare_id>.html``.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import Field

from swarmgym.campaigns.plan import Campaign, flags_in_effect, fresh_seed, plan_jobs
from swarmgym.comparison import DEFAULT_MAX_RUNS, state
from swarmgym.comparison.arms import Arm, parse_arm
from swarmgym.comparison.history import history
from swarmgym.config import Config
from swarmgym.core.errors import UsageError
from swarmgym.core.flags import FLAG_PREFIXES
from swarmgym.core.ids import new_id
from swarmgym.ledger import Ledger
from swarmgym.models import LedgerRecord, Model
from swarmgym.reports.compare_page import page_path, write_page
from swarmgym.suitekit.suite import load_suite
from swarmgym.trend import answer, sequential
from swarmgym.trend.units import NOT_AN_OUTCOME

__all__ = ["Arm", "CompareState", "new_compare", "pair_round", "parse_arm", "run_compare", "summary"]

ROUND_TIER = "light"          # one round = every spec once (the light tier) per arm


class Pair(Model):
    spec: str
    seed: int
    a_job: str
    b_job: str
    a: bool | None = None      # functional; None: no outcome (harness error, or not pairable)
    b: bool | None = None
    note: str = ""

    @property
    def d(self) -> int | None:
        if self.a is None or self.b is None or self.note:
            return None
        return int(self.b) - int(self.a)


class Round(Model):
    round: int
    seed: int
    campaigns: list[str]
    pairs: list[Pair] = Field(default_factory=list)
    runs: int = 0
    step: dict[str, Any] = Field(default_factory=dict)


class CompareState(Model):
    schema_version: int = 2   # 2: the α-spending test (rho, psi0, per-round steps of trend.sequential)
    compare_id: str
    a: Arm
    b: Arm
    a_flags: dict[str, str]   # effective flags of each arm: the env's swarm flags + the arm's own
    b_flags: dict[str, str]
    suite: str
    suite_hash: str
    swarm: str
    mode: Literal["local", "queue"] = "local"
    alpha: float
    min_effect: float
    max_runs: int
    until: Literal["decided", "budget"] = "decided"
    seed: int = 0
    specs: int = 3  # specs in the suite: one round runs each once per arm
    rho: float = sequential.RHO_INDEPENDENT     # the α-spending shape, chosen from psi0 at the start
    psi0: float | None = None                   # the ledger's disagreement rate of these arms at the start
    psi_source: str = ""
    created: float = Field(default_factory=time.time)
    rounds: list[Round] = Field(default_factory=list)
    decision: str = sequential.CONTINUE

    @property
    def runs(self) -> int:
        return sum(r.runs for r in self.rounds)

    @property
    def round_runs(self) -> int:
        return 2 * self.specs

    @property
    def max_rounds(self) -> int:
        return self.max_runs // self.round_runs

    def outcomes(self) -> tuple[list[int], list[int]]:
        """Pair outcomes in order and the number of pairs at the end of each round."""
        d: list[int] = []
        ends: list[int] = []
        for r in self.rounds:
            d += [x for x in (p.d for p in r.pairs) if x is not None]
            ends.append(len(d))
        return d, ends

    def steps(self) -> list[sequential.Step]:
        """The test after each round (a state saved by the previous test, schema 1, has none to show)."""
        out = []
        for r in self.rounds:
            try:
                out.append(sequential.Step(**r.step))
            except TypeError:
                continue
        return out

    def answer(self, next_runs: int | None = None) -> answer.Answer:
        """B against A as every view of this compare says it (:mod:`swarmgym.trend.answer`)."""
        steps = self.steps()
        last = steps[-1] if steps else None
        decision = self.decision if self.decision != sequential.CONTINUE or not last else last.decision
        cmd = answer.compare_command(self.a.spec, self.b.spec, next_runs, swarm=self.swarm, suite=self.suite)
        return answer.Answer(
            first=self.a.label, second=self.b.label, decision=decision,
            effect=last.effect if last else 0.0, lo=last.lo if last else -1.0, hi=last.hi if last else 1.0,
            p_value=last.p_value if last else 1.0, pairs=last.pairs if last else 0,
            a_only=last.a_wins if last else 0, b_only=last.b_wins if last else 0,
            method=(f"group-sequential exact McNemar, α = {self.alpha:g} spent as α·t^{self.rho:g} over "
                    f"{self.max_rounds} rounds"), alpha=self.alpha, min_effect=self.min_effect, runs=self.runs,
            next_command=cmd if decision == "undecided" else None)


# --- state on disk --------------------------------------------------------------------------

def save_state(cfg: Config, st: CompareState) -> Path:
    return state.save(cfg, "compares", st.compare_id, st)


def load_state(cfg: Config, compare_id: str) -> CompareState:
    return state.load(cfg, "compares", compare_id, CompareState, "compare")


def new_compare(cfg: Config, a: Arm, b: Arm, *, swarm: str, suite: str | None = None, alpha: float = 0.05,
                min_effect: float = 0.1, max_runs: int = DEFAULT_MAX_RUNS, until: str = "decided", seed: int | None = None,
                fleet: bool = False) -> CompareState:
    if not 0 < alpha < 1:
        raise UsageError(f"--alpha: expected a number in (0, 1), got {alpha}")
    if not 0 < min_effect < 1:
        raise UsageError(f"--min-effect: expected a number in (0, 1), got {min_effect}")
    s = load_suite(suite or cfg.suite, cfg.suites_dir)
    per_round = 2 * len(s.specs)
    if max_runs < per_round:
        raise UsageError(f"--max-runs: expected at least {per_round} (one round: every spec once per arm), got {max_runs}")
    env = flags_in_effect()
    a_flags, b_flags = {**env, **a.flags}, {**env, **b.flags}
    cid = new_id("cmp")
    if seed is None:   # a block of seeds neither arm ran: every pair is new evidence
        seed = fresh_seed(cfg, s.hash, swarm, [(a.variant, a_flags), (b.variant, b_flags)])
    h = history(cfg, a, b)
    st = CompareState(compare_id=cid, a=a, b=b, a_flags=a_flags, b_flags=b_flags,
                      suite=s.name, suite_hash=s.hash, swarm=swarm, mode="queue" if fleet else "local",
                      alpha=alpha, min_effect=min_effect, max_runs=max_runs, until=until,
                      seed=seed, specs=len(s.specs), rho=sequential.rho_for(h.psi), psi0=h.psi,
                      psi_source=h.source())
    save_state(cfg, st)
    return st


def arm_round(cfg: Config, *, run_id: str, k: int, arms: Sequence[tuple[str, str, dict[str, str]]], suite: str,
              suite_hash: str, swarm: str, mode: Literal["local", "queue"], seed: int) -> list[Campaign]:
    """The campaigns of round ``k`` (1-based) of a comparison of ``arms`` (tag, variant, effective flags): every
    spec once per arm, all arms on the same seed ``seed + k - 1``; campaign ids ``<run_id>-rNN-<tag>``."""
    s = load_suite(suite, cfg.suites_dir)
    if s.hash != suite_hash:
        raise UsageError(f"suite {suite} now hashes to {s.hash}, {run_id} ran on {suite_hash}")
    out = []
    for tag, variant, flags in arms:
        cid = f"{run_id}-r{k:02d}-{tag}"
        jobs = plan_jobs(s, ROUND_TIER, variant, swarm=swarm, campaign_id=cid, flags=flags, seed=seed,
                         first_rep=k - 1)
        out.append(Campaign(campaign_id=cid, mode=mode, tier=ROUND_TIER, variant=variant, suite=s.name,
                            suite_hash=s.hash, swarm=swarm, flags=flags, seed=seed + k - 1, jobs=jobs))
    return out


def round_campaigns(cfg: Config, st: CompareState, k: int) -> tuple[Campaign, Campaign]:
    """The two campaigns of round ``k`` (1-based): same specs, same seed, one per arm."""
    a, b = arm_round(cfg, run_id=st.compare_id, k=k, arms=[("a", st.a.variant, st.a_flags), ("b", st.b.variant, st.b_flags)],
                     suite=st.suite, suite_hash=st.suite_hash, swarm=st.swarm, mode=st.mode, seed=st.seed)
    return a, b


# --- running a round ------------------------------------------------------------------------

class RoundRunner(Protocol):
    def run(self, cfg: Config, campaigns: Sequence[Campaign],
            progress: Callable[[int, int], None] | None = None) -> dict[str, LedgerRecord]:
        """Run the round's campaigns; their session records by job id, as the recording side has them."""


def pair_round(st: CompareState, k: int, camp_a: Campaign, camp_b: Campaign,
               records: dict[str, LedgerRecord]) -> Round:
    """Pair A's and B's run of each spec; a pair whose runs are not comparable is kept with a note."""
    pairs = []
    for ja, jb in zip(camp_a.jobs, camp_b.jobs):
        ra, rb = records.get(ja.job_id), records.get(jb.job_id)
        p = Pair(spec=ja.spec, seed=ja.seed, a_job=ja.job_id, b_job=jb.job_id,
                 a=_outcome(ra), b=_outcome(rb))
        p.note = _unpairable(ra, rb, st) if ra and rb else "not recorded"
        pairs.append(p)
    return Round(round=k, seed=camp_a.jobs[0].seed if camp_a.jobs else st.seed, pairs=pairs,
                 campaigns=[camp_a.campaign_id, camp_b.campaign_id], runs=len(records))


def _outcome(rec: LedgerRecord | None) -> bool | None:
    if rec is None or rec.overall in NOT_AN_OUTCOME:
        return None
    return bool(rec.functional)


def _unpairable(ra: LedgerRecord, rb: LedgerRecord, st: CompareState) -> str:
    """Why two runs must not be paired ('' when they may): never across adapters, suite hashes
    or seeds, and never when a host ran an arm with other swarm flags than the arm's."""
    return unpairable(ra, rb, st.a_flags, st.b_flags)


def unpairable(ra: LedgerRecord, rb: LedgerRecord, a_flags: dict[str, str], b_flags: dict[str, str]) -> str:
    """:func:`_unpairable` for any two arms' runs of one (spec, seed)."""
    pa, pb = ra.provenance, rb.provenance
    if pa.adapter and pb.adapter and pa.adapter != pb.adapter:
        return f"adapters differ ({pa.adapter} vs {pb.adapter})"
    ha, hb = pa.suite_hash or ra.suite_hash, pb.suite_hash or rb.suite_hash
    if ha != hb:
        return f"suite hashes differ ({ha} vs {hb})"
    if pa.seed is not None and pb.seed is not None and pa.seed != pb.seed:
        return f"seeds differ ({pa.seed} vs {pb.seed})"
    for rec, want, tag in ((ra, a_flags, "A"), (rb, b_flags, "B")):
        ran = {k: v for k, v in rec.provenance.flags.items() if k.startswith(FLAG_PREFIXES)}
        if rec.provenance.adapter and ran != {k: v for k, v in want.items() if k.startswith(FLAG_PREFIXES)}:
            return f"host {rec.host} ran arm {tag} with flags {ran}"
    return ""


def ledger_records(cfg: Config, campaigns: Sequence[Campaign]) -> dict[str, LedgerRecord]:
    ledger = Ledger(cfg.ledger_dir)
    return {r.job_id: r for c in campaigns for r in ledger.records(kind="session", campaign_id=c.campaign_id)}


def run_compare(cfg: Config, st: CompareState, runner: RoundRunner, *,
                on_round: Callable[[Round, sequential.Step], None] | None = None,
                progress: Callable[[int, int], None] | None = None) -> CompareState:
    """Run rounds until the test decides (``until="decided"``; a budget that can no longer decide stops
    ``undecided``) or the budget is spent (``until="budget"``, the first decision stands)."""
    while len(st.rounds) < st.max_rounds:
        k = len(st.rounds) + 1
        camps = round_campaigns(cfg, st, k)
        st.rounds.append(pair_round(st, k, *camps, runner.run(cfg, camps, progress)))
        d, ends = st.outcomes()
        steps = sequential.path(d, ends, alpha=st.alpha, min_effect=st.min_effect, looks=st.max_rounds, rho=st.rho,
                                budget_spent=len(st.rounds) >= st.max_rounds, stop=False,
                                futility=st.until == "decided")
        st.rounds[-1].step = asdict(steps[-1])
        if st.decision == sequential.CONTINUE:
            st.decision = steps[-1].decision
        save_state(cfg, st)
        write_page(cfg, st)
        if on_round:
            on_round(st.rounds[-1], steps[-1])
        if st.decision != sequential.CONTINUE and (st.until == "decided" or st.decision == "undecided"):
            break
    if st.decision == sequential.CONTINUE:
        st.decision = "undecided"
    save_state(cfg, st)
    write_page(cfg, st, final_answer(cfg, st))
    return st


def next_runs(cfg: Config, st: CompareState) -> int | None:
    """The next step's budget: what detects ``min_effect`` with 80 % power at the disagreement of these two
    arms' paired runs so far (this home's ledger's, or this compare's own when the ledger has fewer)."""
    h = history(cfg, st.a, st.b)
    d, _ = st.outcomes()
    own = (sum(1 for x in d if x), len(d))     # a fleet compare's runs are in the coordinator's ledger, not here
    discordant, pairs = (h.discordant, h.pairs) if h.pairs >= own[1] else own
    return answer.next_budget(discordant, pairs, per_round=st.specs, alpha=st.alpha, min_effect=st.min_effect)


def final_answer(cfg: Config | None, st: CompareState) -> answer.Answer:
    """The answer, with the next step when it is undecided."""
    return st.answer(next_runs(cfg, st) if cfg is not None and st.decision == "undecided" else None)


def summary(st: CompareState, cfg: Config | None = None) -> dict[str, Any]:
    """What ``compare --json`` prints: the answer (B minus A), and the compare's own numbers."""
    ans = final_answer(cfg, st)
    return {"decision": ans.decision, "verdict": ans.verdict, "runs": st.runs, "p_value": ans.p_value,
            "effect": round(ans.effect, 4), "interval": [round(ans.lo, 4), round(ans.hi, 4)],
            "rounds": len(st.rounds), "compare_id": st.compare_id, "a": st.a.label, "b": st.b.label,
            "pairs": ans.pairs, "next": ans.next_command, "answer": ans.json(),
            "page": str(page_path(cfg, st.compare_id)) if cfg else None}
