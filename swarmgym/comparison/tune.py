"""``swarmgym tune A B C …``: which of K arms is best, in rounds, dropping an arm as soon as it is shown worse.

One round runs every spec of the suite once per *contender* — the leader, the baseline while it is close, and
every arm still in the race that keeps them from winning (:meth:`~swarmgym.trend.race.Race.contenders`; an arm
the leader already beats by enough sits the round out) — all on the same seed (one campaign per arm, ``<tune_id>-rNN-aK``, planned and run like a ``compare`` round: in-process or on the
fleet, every run in the ledger).  The race (:class:`swarmgym.trend.race.Race`) is fed each round's
outcomes in spec order and decides:

- ``best``: one arm is the best within ``min_effect`` with the asked confidence (the best, when it leads
  every other arm by at least ``min_effect``);
- ``no arm better``: the baseline (the first arm, or ``--baseline``) is — no arm beats it by ``min_effect``;
- ``undecided``: the budget (``--max-runs``) ran out first; the leader so far and the next step are shown.

The state is saved in ``runs/tunes/<tune_id>.json`` before each round starts and after it ends, so a
killed ``tune`` resumes with ``swarmgym tune --resume <tune_id>``: the race is replayed from the recorded
rounds and the round that was running finishes its missing jobs only.  The page is
``runs/tune-<tune_id>.html`` (:mod:`swarmgym.reports.tune_page`).
"""
from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field

from swarmgym.campaigns.plan import Campaign, flags_in_effect, fresh_seed
from swarmgym.comparison import state
from swarmgym.comparison.arms import Arm
from swarmgym.comparison.compare import RoundRunner, arm_round, unpairable
from swarmgym.config import Config
from swarmgym.core.errors import UsageError
from swarmgym.core.ids import new_id
from swarmgym.models import LedgerRecord, Model
from swarmgym.reports.tune_page import page_path, write_page
from swarmgym.suitekit.suite import load_suite
from swarmgym.trend import answer, race
from swarmgym.trend.units import NOT_AN_OUTCOME

RUNS_PER_ARM = 60   # the default budget: this many runs per arm


class TuneRound(Model):
    round: int
    seed: int
    arms: list[int]                          # arms that ran this round
    campaigns: list[str]
    outcomes: dict[str, list[bool | None]] = Field(default_factory=dict)   # arm index -> per spec (None: no outcome)
    failures: dict[str, list[str]] = Field(default_factory=dict)   # arm index -> each run's failure class
    notes: list[str] = Field(default_factory=list)
    eliminated: dict[str, int] = Field(default_factory=dict)   # arm index -> the arm that showed it worse
    runs: int = 0


class TuneState(Model):
    schema_version: int = 1
    tune_id: str
    arms: list[Arm]
    flags: list[dict[str, str]]              # each arm's effective flags: the env's swarm flags + its own
    baseline: int = 0
    suite: str
    suite_hash: str
    swarm: str
    mode: Literal["local", "queue"] = "local"
    alpha: float
    min_effect: float
    max_runs: int
    seed: int = 0
    specs: int = 3
    created: float = Field(default_factory=time.time)
    rounds: list[TuneRound] = Field(default_factory=list)
    running: int | None = None               # the round started and not yet recorded (resume finishes it)
    decision: str = race.CONTINUE
    winner: int | None = None

    @property
    def runs(self) -> int:
        return sum(r.runs for r in self.rounds)

    def label(self, i: int) -> str:
        return self.arms[i].label


# --- state on disk ------------------------------------------------------------------------------

def save_state(cfg: Config, st: TuneState) -> Path:
    return state.save(cfg, "tunes", st.tune_id, st)


def load_state(cfg: Config, tune_id: str) -> TuneState:
    return state.load(cfg, "tunes", tune_id, TuneState, "tune")


def new_tune(cfg: Config, arms: Sequence[Arm], *, swarm: str, baseline: Arm | None = None, suite: str | None = None,
             confidence: float = 0.95, min_effect: float = answer.MIN_EFFECT, max_runs: int | None = None,
             seed: int | None = None, fleet: bool = False) -> TuneState:
    if len(arms) < 2:
        raise UsageError(f"tune: expected at least two arms, got {len(arms)}")
    labels = [a.label for a in arms]
    if len(set(labels)) < len(labels):
        dup = next(x for x in labels if labels.count(x) > 1)
        raise UsageError(f"tune: arm {dup!r} is named twice")
    if not 0.5 <= confidence < 1:
        raise UsageError(f"--confidence: expected a number in [0.5, 1), got {confidence}")
    if not 0 < min_effect < 1:
        raise UsageError(f"--min-effect: expected a pass-rate difference in (0, 1), got {min_effect}")
    base = 0
    if baseline is not None:
        if baseline.label not in labels:
            raise UsageError(f"--baseline: {baseline.label!r} is not one of the arms ({', '.join(labels)})")
        base = labels.index(baseline.label)
    s = load_suite(suite or cfg.suite, cfg.suites_dir)
    per_round = len(arms) * len(s.specs)
    max_runs = RUNS_PER_ARM * len(arms) if max_runs is None else max_runs
    if max_runs < per_round:
        raise UsageError(f"--max-runs: expected at least {per_round} (one round: every spec once per arm), got {max_runs}")
    env = flags_in_effect()
    flags = [{**env, **a.flags} for a in arms]
    if seed is None:   # a block of seeds no arm ran: every run is new evidence
        seed = fresh_seed(cfg, s.hash, swarm, [(a.variant, f) for a, f in zip(arms, flags)])
    st = TuneState(tune_id=new_id("tune"), arms=list(arms), flags=flags, baseline=base, suite=s.name,
                   suite_hash=s.hash, swarm=swarm, mode="queue" if fleet else "local", alpha=1 - confidence,
                   min_effect=min_effect, max_runs=max_runs, seed=seed, specs=len(s.specs))
    save_state(cfg, st)
    return st


# --- the race, replayed from the recorded rounds ------------------------------------------------------

def replay(st: TuneState) -> race.Race:
    """The race after every recorded round (a resumed tune continues from exactly here)."""
    r = race.Race(len(st.arms), alpha=st.alpha, min_effect=st.min_effect, baseline=st.baseline)
    for rnd in st.rounds:
        feed(r, st, rnd)
        r.review(budget_spent=False)
    return r


def feed(r: race.Race, st: TuneState, rnd: TuneRound) -> None:
    ran = np.zeros((1, len(st.arms)), dtype=bool)
    ran[0, rnd.arms] = True
    for s in range(st.specs):
        passed = np.zeros((1, len(st.arms)), dtype=bool)
        graded = np.zeros((1, len(st.arms)), dtype=bool)
        for key, outs in rnd.outcomes.items():
            v = outs[s] if s < len(outs) else None
            graded[0, int(key)] = v is not None
            passed[0, int(key)] = bool(v)
        r.observe(passed, graded, ran)


def round_outcomes(st: TuneState, k: int, arms: list[int], camps: Sequence[Campaign],
                   records: dict[str, LedgerRecord]) -> TuneRound:
    """Each arm's outcome per spec; a run that could not be graded, or whose host ran other flags than its
    arm's, is no outcome (it pairs with nothing)."""
    rnd = TuneRound(round=k, seed=st.seed + k - 1, arms=arms, campaigns=[c.campaign_id for c in camps],
                    runs=sum(1 for c in camps for j in c.jobs if j.job_id in records))
    ref = {s: records.get(camps[0].jobs[s].job_id) for s in range(len(camps[0].jobs))}
    for arm, camp in zip(arms, camps):
        outs: list[bool | None] = []
        rnd.failures[str(arm)] = [(r.failure.kind if r.failure else "unclassified")
                                  for r in (records.get(j.job_id) for j in camp.jobs) if r is not None]
        for s, job in enumerate(camp.jobs):
            rec = records.get(job.job_id)
            base = ref.get(s)
            why = "not recorded" if rec is None else (
                unpairable(base, rec, st.flags[arms[0]], st.flags[arm]) if base is not None else "")
            if rec is None or rec.overall in NOT_AN_OUTCOME or why:
                outs.append(None)
                if why:
                    rnd.notes.append(f"{st.label(arm)} {job.spec}: {why}")
            else:
                outs.append(bool(rec.functional))
        rnd.outcomes[str(arm)] = outs
    return rnd


def campaigns_of(cfg: Config, st: TuneState, k: int, arms: list[int]) -> list[Campaign]:
    return arm_round(cfg, run_id=st.tune_id, k=k, arms=[(f"a{i}", st.arms[i].variant, st.flags[i]) for i in arms],
                     suite=st.suite, suite_hash=st.suite_hash, swarm=st.swarm, mode=st.mode, seed=st.seed)


def run_tune(cfg: Config, st: TuneState, runner: RoundRunner, *,
             on_round: Callable[[TuneRound, race.Race], None] | None = None,
             progress: Callable[[int, int], None] | None = None) -> TuneState:
    """Run rounds (resuming a round that was cut short) until the race decides or the budget is spent."""
    r = replay(st)
    per_round = st.specs
    while st.decision == race.CONTINUE:
        arms = [i for i in range(len(st.arms)) if r.next[0, i]]   # the contenders: the rest sit this round out
        if st.runs + len(arms) * per_round > st.max_runs:
            r.review(budget_spent=True)
            break
        k = len(st.rounds) + 1
        camps = campaigns_of(cfg, st, k, arms)
        st.running = k
        save_state(cfg, st)
        rnd = round_outcomes(st, k, arms, camps, runner.run(cfg, camps, progress))
        before = r.alive[0].copy()
        feed(r, st, rnd)
        r.review(budget_spent=st.runs + rnd.runs + len(arms) * per_round > st.max_runs)
        rnd.eliminated = {str(i): int(r.eliminated_by[0, i]) for i in range(len(st.arms))
                          if before[i] and not r.alive[0, i]}
        st.rounds.append(rnd)
        st.running = None
        st.decision = str(r.decision[0])
        st.winner = int(r.winner[0]) if r.winner[0] >= 0 else None
        save_state(cfg, st)
        write_page(cfg, st, summary(st, r))
        if on_round:
            on_round(rnd, r)
    st.decision = str(r.decision[0]) if st.decision == race.CONTINUE else st.decision
    st.winner = int(r.winner[0]) if r.winner[0] >= 0 else st.winner
    save_state(cfg, st)
    write_page(cfg, st, summary(st, r, cfg))
    return st


# --- what it says ------------------------------------------------------------------------------------

def versus(st: TuneState, r: race.Race, arm: int, other: int, cfg: Config | None = None) -> answer.Answer:
    """``arm`` (B) against ``other`` (A) as every view says it: the paired runs of the tune, the race's interval."""
    a_only = b_only = n = 0
    for rnd in st.rounds:
        oa, ob = rnd.outcomes.get(str(other)), rnd.outcomes.get(str(arm))
        for x, y in zip(oa or [], ob or []):
            if x is None or y is None:
                continue
            n += 1
            a_only += x and not y
            b_only += y and not x
    lo, hi = float(r.lo[0, arm, other]), float(r.hi[0, arm, other])
    if lo > 0:
        decision = "B"
    elif hi < 0:
        decision = "A"
    elif -st.min_effect < lo and hi < st.min_effect:
        decision = "no difference"
    else:
        decision = "undecided"
    return answer.Answer(first=st.label(other), second=st.label(arm), decision=decision,
                         effect=(b_only - a_only) / n if n else 0.0, lo=lo, hi=hi, p_value=float("nan"), pairs=n,
                         a_only=a_only, b_only=b_only, alpha=st.alpha / (len(st.arms) - 1), min_effect=st.min_effect,
                         runs=2 * n, method=(f"the race's confidence sequence for the pair (each bound at level "
                                             f"{st.alpha / (len(st.arms) - 1):.3g} = (1 − confidence) / (K − 1))"))


def next_step(st: TuneState) -> str:
    """A tune of the same arms with twice the budget."""
    parts = ["swarmgym", "tune", *[a.spec for a in st.arms], "--baseline", st.arms[st.baseline].spec,
             "--max-runs", str(2 * st.max_runs), "--confidence", f"{1 - st.alpha:g}", "--min-effect",
             f"{st.min_effect:g}", "--swarm", st.swarm, "--suite", st.suite]
    return shlex.join(parts)


def summary(st: TuneState, r: race.Race | None = None, cfg: Config | None = None) -> dict[str, Any]:
    """What ``tune --json`` prints and the page draws."""
    r = r if r is not None else replay(st)
    lead = int(r.leader()[0])
    vs_base = versus(st, r, lead, st.baseline) if lead != st.baseline else None
    arms = []
    for i, arm in enumerate(st.arms):
        runs = sum(1 for rnd in st.rounds for v in rnd.outcomes.get(str(i), []) if v is not None)
        passes = sum(1 for rnd in st.rounds for v in rnd.outcomes.get(str(i), []) if v)
        out_round = next((rnd.round for rnd in st.rounds if str(i) in rnd.eliminated), None)
        arms.append({"arm": arm.label, "spec": arm.spec, "baseline": i == st.baseline, "runs": runs, "passes": passes,
                     "rate": round(passes / runs, 4) if runs else None, "alive": bool(r.alive[0, i]),
                     "eliminated_in_round": out_round,
                     "eliminated_by": (st.label(int(r.eliminated_by[0, i])) if r.eliminated_by[0, i] >= 0 else None)})
    conf = f"{100 * (1 - st.alpha):g} %"
    shown_better = vs_base is not None and vs_base.decision == "B"
    words = {race.BEST: (f"best: {st.label(lead)} (no arm is {st.min_effect:g} better, {conf}; "
                         + ("shown better than the baseline)" if shown_better else "not yet shown better than the baseline)")),
             race.NO_BETTER: f"no arm better than the baseline {st.label(st.baseline)} by {st.min_effect:g} ({conf})",
             race.UNDECIDED: f"undecided (leading: {st.label(lead)})", race.CONTINUE: f"running (leading: {st.label(lead)})"}
    return {"tune_id": st.tune_id, "decision": st.decision, "verdict": words.get(st.decision, st.decision),
            "winner": st.label(st.winner) if st.winner is not None else None, "leader": st.label(lead),
            "baseline": st.label(st.baseline), "confidence": round(1 - st.alpha, 6), "min_effect": st.min_effect,
            "runs": st.runs, "rounds": len(st.rounds), "max_runs": st.max_runs, "arms": arms,
            "versus_baseline": vs_base.json() if vs_base else None,
            "next": next_step(st) if st.decision == race.UNDECIDED else None,
            "page": str(page_path(cfg, st.tune_id)) if cfg else None}
