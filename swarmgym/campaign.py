"""A campaign: the planned spec x rep jobs of one bench or enqueue, saved before any job runs.

The plan lives in ``runs/campaigns/<campaign_id>.json`` (written atomically), so a campaign cut
short — a killed ``bench``, a flushed Redis — can be finished from disk: every job whose
``job_id`` has no ledger record is still to do.
"""
from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path
from typing import Literal, Mapping

from pydantic import Field

from swarmgym.atomic import atomic_write_text
from swarmgym.config import Config
from swarmgym.errors import UsageError
from swarmgym.models import JobSpec, Model, TIERS
from swarmgym.queue.routing import check_name
from swarmgym.suite import Suite

FLAG_PREFIXES = ("GOOSE_SWARM_",)
FLAG_KNOBS = ("GOOSE_LOCAL_CONTEXT_CAP", "GOOSE_MAX_BACKGROUND_TASKS")


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
    created: float = Field(default_factory=time.time)
    cancelled: bool = False
    jobs: list[JobSpec] = Field(default_factory=list)


def flags_in_effect(env: dict[str, str] | None = None) -> dict[str, str]:
    """The swarm feature flags and env knobs set in ``env`` (default: this process)."""
    source: Mapping[str, str] = os.environ if env is None else env
    return {k: v for k, v in sorted(source.items()) if k.startswith(FLAG_PREFIXES) or k in FLAG_KNOBS}


def new_campaign_id(prefix: str, variant: str, tier: str) -> str:
    """Unique even for two campaigns started in the same second (job ids derive from it)."""
    return f"{prefix}-{variant}-{tier}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{secrets.token_hex(2)}"


def plan_jobs(suite: Suite, tier: str, variant: str, *, swarm: str = "sim", campaign_id: str | None = None,
              flags: dict[str, str] | None = None, pin_host: str | None = None, seed: int = 0) -> list[JobSpec]:
    """spec x rep jobs for ``tier`` in interleaved order: spec0, spec1, spec2, spec0, …"""
    if tier not in TIERS:
        raise UsageError(f"--tier: expected one of {', '.join(TIERS)}, got {tier!r}")
    check_name("variant", variant)
    n_specs, reps = TIERS[tier]
    specs = suite.specs[:n_specs]
    cid = campaign_id or new_campaign_id("bench", variant, tier)
    jobs, seq = [], 0
    for rep in range(reps):
        for spec in specs:
            jobs.append(JobSpec(job_id=f"{cid}-{seq:03d}", campaign_id=cid, suite=suite.name, suite_hash=suite.hash,
                                spec=spec.id, app_slug=spec.app_slug, variant=variant, tier=tier, rep=rep, seq=seq,
                                hard=tier == "extreme", swarm=swarm, pin_host=pin_host, flags=dict(flags or {}),
                                seed=seed + rep))
            seq += 1
    return jobs


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
