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

import json
import re
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import Field

from swarmgym.campaigns.plan import Campaign, arm_seed, flags_in_effect, plan_jobs
from swarmgym.comparison import DEFAULT_MAX_RUNS, sequential
from swarmgym.config import Config
from swarmgym.core.atomic import atomic_write_text
from swarmgym.core.errors import SwarmgymError, UsageError
from swarmgym.core.flags import ENV_KNOBS as FLAG_KNOBS
from swarmgym.core.flags import FLAG_PREFIXES
from swarmgym.core.ids import new_id
from swarmgym.core.names import check_name
from swarmgym.ledger import Ledger
from swarmgym.models import LedgerRecord, Model
from swarmgym.reports.compare_page import page_path, write_page
from swarmgym.suitekit.suite import load_suite
from swarmgym.trend import arms

ROUND_TIER = "light"          # one round = every spec once (the light tier) per arm
ARM_SYNTAX = "variant[:FLAG=V,…] (e.g. gguf or gguf:GOOSE_SWARM_REVIEW=1)"
_FLAG = re.compile(r"^[A-Z][A-Z0-9_]*$")
NOT_AN_OUTCOME = ("error", "infra")   # the harness could not run the job: no pair


class Arm(Model):
    variant: str
    flags: dict[str, str] = Field(default_factory=dict)   # what the arm sets on top of the env

    @property
    def label(self) -> str:
        return arms.arm(self.variant, json.dumps(self.flags, sort_keys=True))


def parse_arm(text: str, which: str) -> Arm:
    """``variant[:FLAG=V,…]``; anything else is a one-line usage error naming the argument."""
    def bad(why: str) -> UsageError:
        return UsageError(f"{which}: expected {ARM_SYNTAX}, got {text!r} ({why})")

    variant, _, rest = text.strip().partition(":")
    if not variant:
        raise bad("no variant")
    try:
        check_name(which, variant)
    except SwarmgymError:
        raise bad("the variant must be a plain name") from None
    flags: dict[str, str] = {}
    if _ or rest:
        for item in rest.split(","):
            name, eq, value = item.strip().partition("=")
            if not eq or not _FLAG.match(name):
                raise bad(f"{item.strip() or 'empty flag'!r} is not FLAG=V")
            if not (name.startswith(FLAG_PREFIXES) or name in FLAG_KNOBS):
                raise bad(f"{name} is not a swarm flag ({', '.join(FLAG_PREFIXES)}* or {', '.join(FLAG_KNOBS)})")
            flags[name] = value
    return Arm(variant=variant, flags=flags)


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
    schema_version: int = 1
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
        return [sequential.Step(**r.step) for r in self.rounds if r.step]


# --- state on disk --------------------------------------------------------------------------

def state_path(cfg: Config, compare_id: str) -> Path:
    return cfg.runs_dir / "compares" / f"{compare_id}.json"


def save_state(cfg: Config, st: CompareState) -> Path:
    return atomic_write_text(state_path(cfg, st.compare_id), st.model_dump_json(indent=1))


def load_state(cfg: Config, compare_id: str) -> CompareState:
    path = state_path(cfg, compare_id)
    try:
        return CompareState.model_validate_json(path.read_text())
    except OSError:
        raise UsageError(f"compare {compare_id!r}: no state at {path}") from None
    except ValueError as e:
        raise UsageError(f"{path}: not a compare state ({str(e).splitlines()[0]})") from None


def list_states(cfg: Config) -> list[CompareState]:
    out = []
    for p in sorted((cfg.runs_dir / "compares").glob("*.json")):
        try:
            out.append(load_state(cfg, p.stem))
        except SwarmgymError:
            continue
    return out


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
    cid = new_id("cmp")
    if seed is None:
        earlier = sum(1 for x in list_states(cfg)
                      if (x.suite_hash, x.swarm, x.a.label, x.b.label) == (s.hash, swarm, a.label, b.label))
        seed = arm_seed(earlier)
    st = CompareState(compare_id=cid, a=a, b=b, a_flags={**env, **a.flags}, b_flags={**env, **b.flags},
                      suite=s.name, suite_hash=s.hash, swarm=swarm, mode="queue" if fleet else "local",
                      alpha=alpha, min_effect=min_effect, max_runs=max_runs, until=until,
                      seed=seed, specs=len(s.specs))
    save_state(cfg, st)
    return st


def round_campaigns(cfg: Config, st: CompareState, k: int) -> tuple[Campaign, Campaign]:
    """The two campaigns of round ``k`` (1-based): same specs, same seed, one per arm."""
    s = load_suite(st.suite, cfg.suites_dir)
    if s.hash != st.suite_hash:
        raise UsageError(f"suite {st.suite} now hashes to {s.hash}, compare {st.compare_id} ran on {st.suite_hash}")
    out = []
    for tag, arm, flags in (("a", st.a, st.a_flags), ("b", st.b, st.b_flags)):
        cid = f"{st.compare_id}-r{k:02d}-{tag}"
        jobs = plan_jobs(s, ROUND_TIER, arm.variant, swarm=st.swarm, campaign_id=cid, flags=flags, seed=st.seed,
                         first_rep=k - 1)
        out.append(Campaign(campaign_id=cid, mode=st.mode, tier=ROUND_TIER, variant=arm.variant, suite=s.name,
                            suite_hash=s.hash, swarm=st.swarm, flags=flags, jobs=jobs))
    return out[0], out[1]


# --- running a round ------------------------------------------------------------------------

class RoundRunner(Protocol):
    def run(self, cfg: Config, campaigns: tuple[Campaign, Campaign],
            progress: Callable[[int, int], None] | None = None) -> dict[str, LedgerRecord]:
        """Run both campaigns; their session records by job id, as the recording side has them."""


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
    pa, pb = ra.provenance, rb.provenance
    if pa.adapter and pb.adapter and pa.adapter != pb.adapter:
        return f"adapters differ ({pa.adapter} vs {pb.adapter})"
    ha, hb = pa.suite_hash or ra.suite_hash, pb.suite_hash or rb.suite_hash
    if ha != hb:
        return f"suite hashes differ ({ha} vs {hb})"
    if pa.seed is not None and pb.seed is not None and pa.seed != pb.seed:
        return f"seeds differ ({pa.seed} vs {pb.seed})"
    for rec, want, tag in ((ra, st.a_flags, "A"), (rb, st.b_flags, "B")):
        ran = {k: v for k, v in rec.provenance.flags.items() if k.startswith(FLAG_PREFIXES)}
        if rec.provenance.adapter and ran != {k: v for k, v in want.items() if k.startswith(FLAG_PREFIXES)}:
            return f"host {rec.host} ran arm {tag} with flags {ran}"
    return ""


def ledger_records(cfg: Config, campaigns: tuple[Campaign, ...]) -> dict[str, LedgerRecord]:
    ledger = Ledger(cfg.ledger_dir)
    return {r.job_id: r for c in campaigns for r in ledger.records(kind="session", campaign_id=c.campaign_id)}


def run_compare(cfg: Config, st: CompareState, runner: RoundRunner, *,
                on_round: Callable[[Round, sequential.Step], None] | None = None,
                progress: Callable[[int, int], None] | None = None) -> CompareState:
    """Run rounds until the test decides (``until="decided"``) or the budget is spent."""
    while len(st.rounds) < st.max_rounds:
        k = len(st.rounds) + 1
        camps = round_campaigns(cfg, st, k)
        st.rounds.append(pair_round(st, k, *camps, runner.run(cfg, camps, progress)))
        d, ends = st.outcomes()
        steps = sequential.path(d, ends, alpha=st.alpha, min_effect=st.min_effect,
                                budget_spent=len(st.rounds) >= st.max_rounds, stop=False)
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
        write_page(cfg, st)
    return st


def summary(st: CompareState, cfg: Config | None = None) -> dict[str, Any]:
    """What ``compare --json`` prints."""
    steps = st.steps()
    last = steps[-1] if steps else None
    return {"decision": st.decision, "runs": st.runs,
            "p_value": last.p_value if last else 1.0, "effect": last.effect if last else 0.0,
            "interval": [last.lo, last.hi] if last else [-1.0, 1.0], "rounds": len(st.rounds),
            "compare_id": st.compare_id, "a": st.a.label, "b": st.b.label,
            "pairs": last.pairs if last else 0,
            "page": str(page_path(cfg, st.compare_id)) if cfg else None}
