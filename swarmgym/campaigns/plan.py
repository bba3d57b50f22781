"""A campaign: the planned spec x rep jobs of one bench or enqueue, saved before any job runs.

:func:`new_campaign` is the one planning pipeline both ``bench`` and ``enqueue`` use: it checks
the arguments, takes the flags in effect, picks the seeds (:func:`default_seed`) and saves the
plan, which records every job's seed.

The plan lives in ``runs/campaigns/<campaign_id>.json`` (written atomically), so a campaign cut
short — a killed ``bench``, a flushed Redis — can be finished from disk: every job whose
``job_id`` has no ledger record is still to do.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Literal, Mapping

from pydantic import Field

from swarmgym.config import Config
from swarmgym.core.atomic import atomic_write_text
from swarmgym.core.errors import SwarmgymError, UsageError
from swarmgym.core.flags import env_knobs, swarm_flags
from swarmgym.core.ids import new_id
from swarmgym.core.names import check_name
from swarmgym.models import TIERS, JobSpec, Model
from swarmgym.suitekit.suite import Suite, load_suite

SEED_STRIDE = 1000  # seeds come in blocks: a campaign (or a comparison's rounds) takes one block of its own


def job_seed(seed: int, rep: int) -> int:
    """The seed of repetition ``rep`` of each spec in a campaign whose first seed is ``seed``."""
    return seed + rep


class Campaign(Model):
    schema_version: int = 1
    campaign_id: str
    mode: Literal["local", "queue"] = "local"
    tier: str
    variant: str
    suite: str
    suite_hash: str
    swarm: str = "sim"
    flags: dict[str, str] = Field(default_factory=dict)
    pin_host: str | None = None
    seed: int | None = None  # the first job's seed; rep r of every spec gets seed + r
    schedule: str | None = None  # the schedule that started it (its series and on_change alarm; docs/trend.md)
    created: float = Field(default_factory=time.time)
    cancelled: bool = False
    jobs: list[JobSpec] = Field(default_factory=list)


def flags_in_effect(env: dict[str, str] | None = None) -> dict[str, str]:
    """The swarm feature flags and env knobs set in ``env`` (default: this process)."""
    src: Mapping[str, str] = os.environ if env is None else env
    return dict(sorted({**swarm_flags(src), **env_knobs(src)}.items()))


def new_campaign_id(prefix: str, variant: str, tier: str) -> str:
    """Unique even for two campaigns started in the same second (job ids derive from it)."""
    return new_id(f"{prefix}-{variant}-{tier}")


def tier_shape(tier: str, n_specs: int) -> tuple[int, int]:
    """(specs, reps) of ``tier`` for a suite of ``n_specs``: smoke one run of the first spec; light every
    spec once; medium, high and extreme at least 15, 30 and 30 runs, every spec equally often
    (reps = ⌈runs / specs⌉). A three-spec suite gets the seed's tiers: 1×1, 3×1, 3×5, 3×10, 3×10."""
    if tier not in TIERS:
        raise UsageError(f"--tier: expected one of {', '.join(TIERS)}, got {tier!r}")
    if tier == "smoke":
        return 1, 1
    return n_specs, max(1, -(-TIERS[tier] // n_specs))


def plan_jobs(suite: Suite, tier: str, variant: str, *, swarm: str = "sim", campaign_id: str | None = None,
              flags: dict[str, str] | None = None, pin_host: str | None = None, seed: int = 0,
              first_rep: int = 0) -> list[JobSpec]:
    """spec x rep jobs for ``tier`` in interleaved order: spec0, spec1, spec2, spec0, …; reps count from
    ``first_rep`` (a comparison's round ``k`` is rep ``k - 1``) and rep ``r`` gets :func:`job_seed`."""
    n_specs, reps = tier_shape(tier, len(suite.specs))
    check_name("variant", variant)
    specs = suite.specs[:n_specs]
    cid = campaign_id or new_campaign_id("bench", variant, tier)
    jobs, seq = [], 0
    for rep in range(first_rep, first_rep + reps):
        for spec in specs:
            jobs.append(JobSpec(job_id=f"{cid}-{seq:03d}", campaign_id=cid, suite=suite.name, suite_hash=suite.hash,
                                spec=spec.id, app_slug=spec.app_slug, variant=variant, tier=tier, rep=rep, seq=seq,
                                hard=tier == "extreme", swarm=swarm, pin_host=pin_host, flags=dict(flags or {}),
                                seed=job_seed(seed, rep)))
            seq += 1
    return jobs


def used_seed_blocks(cfg: Config, suite_hash: str, swarm: str, arms: list[tuple[str, dict[str, str]]]) -> set[int]:
    """The seed blocks (seed // SEED_STRIDE) every earlier campaign of these arms planned — bench, enqueue,
    and each round of a ``compare`` or ``tune`` (saved as campaigns too); an arm is variant + flags, on
    this suite and adapter."""
    want = {(v, json.dumps(f, sort_keys=True)) for v, f in arms}
    blocks: set[int] = set()
    for cid in list_campaigns(cfg):
        try:
            c = load_campaign(cfg, cid)
        except SwarmgymError:
            continue
        if (c.suite_hash, c.swarm) == (suite_hash, swarm) and (c.variant, json.dumps(c.flags, sort_keys=True)) in want:
            blocks |= {j.seed // SEED_STRIDE for j in c.jobs}
    return blocks


def fresh_seed(cfg: Config, suite_hash: str, swarm: str, arms: list[tuple[str, dict[str, str]]]) -> int:
    """The first seed of the first block none of ``arms``' earlier campaigns used: 0, 1000, 2000, …

    Evidence counts once: a new campaign never re-runs a (spec, seed) its arm already ran, so on a swarm
    that replays seeds (the simulator) it is new evidence.  Arms that have run equally often get the same
    block — the first campaigns of two arms share seeds, so a simulated A/B is paired (common random
    numbers) — and a comparison's rounds take a block neither of its arms used."""
    used = used_seed_blocks(cfg, suite_hash, swarm, arms)
    block = 0
    while block in used:
        block += 1
    return block * SEED_STRIDE


def default_seed(cfg: Config, suite_hash: str, swarm: str, variant: str, flags: dict[str, str]) -> int:
    """The first seed of a new campaign of one arm (adapter + variant + flags) on this suite: :func:`fresh_seed`."""
    return fresh_seed(cfg, suite_hash, swarm, [(variant, flags)])


def new_campaign(cfg: Config, tier: str, variant: str, *, swarm: str, mode: Literal["local", "queue"] = "local",
                 suite: str | None = None, flags: dict[str, str] | None = None, seed: int | None = None,
                 pin_host: str | None = None, campaign_id: str | None = None,
                 schedule: str | None = None) -> Campaign:
    """Plan and save a campaign (bench and enqueue alike); ``flags`` default to this process's."""
    check_name("variant", variant)
    if pin_host:
        check_name("pin-host", pin_host)
    s = load_suite(suite or cfg.suite, cfg.suites_dir)
    cid = campaign_id or new_campaign_id("bench" if mode == "local" else "q", variant, tier)
    flags = flags_in_effect() if flags is None else dict(flags)
    seed = default_seed(cfg, s.hash, swarm, variant, flags) if seed is None else seed
    c = Campaign(campaign_id=cid, mode=mode, tier=tier, variant=variant, suite=s.name, suite_hash=s.hash,
                 swarm=swarm, flags=flags, pin_host=pin_host, seed=seed, schedule=schedule,
                 jobs=plan_jobs(s, tier, variant, swarm=swarm, campaign_id=cid, flags=flags, pin_host=pin_host,
                                seed=seed))
    save_campaign(cfg, c)
    return c


def campaign_path(cfg: Config, campaign_id: str) -> Path:
    return cfg.runs_dir / "campaigns" / f"{campaign_id}.json"


def save_campaign(cfg: Config, c: Campaign) -> Path:
    return atomic_write_text(campaign_path(cfg, c.campaign_id), c.model_dump_json(indent=1))


def load_campaign(cfg: Config, campaign_id: str) -> Campaign:
    path = campaign_path(cfg, campaign_id)
    if not path.is_file():
        raise UsageError(f"campaign {campaign_id!r}: no plan at {path}")
    try:
        return Campaign.model_validate(json.loads(path.read_text()))
    except (ValueError, json.JSONDecodeError) as e:
        raise UsageError(f"{path}: not a valid campaign plan ({str(e).splitlines()[0]})") from None


def list_campaigns(cfg: Config) -> list[str]:
    d = cfg.runs_dir / "campaigns"
    return sorted(p.stem for p in d.glob("*.json")) if d.is_dir() else []
