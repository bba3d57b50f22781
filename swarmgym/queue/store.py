"""Campaign state for the queue: the plan file on disk plus a Redis hash.

The plan (``runs/campaigns/<cid>.json``, :mod:`swarmgym.campaign`, written atomically by the
enqueuer) holds the JobSpecs and the ``cancelled`` flag: it survives a Redis flush, so ``resume``
works from it and the ledger.  Redis keeps ``swarmgym:campaign:<cid>`` (status ``running`` |
``cancelled`` | ``finalized``, variant, tier, job count, ``finalize_pending``) and
``swarmgym:campaign:<cid>:jobs`` (job_id -> JSON ``{state: queued|running|done, host, ts}``).
:func:`ensure_redis` rebuilds the hash from the plan after a flush.
"""
from __future__ import annotations

import json
import time

from swarmgym.states import CampaignStatus, JobState
from swarmgym.campaign import Campaign, list_campaigns, load_campaign, save_campaign
from swarmgym.queue.redis_util import PREFIX

CAMPAIGNS_SET = f"{PREFIX}campaigns"

__all__ = ["Campaign", "load_campaign", "save_campaign", "list_campaigns", "hash_key", "jobs_key",
           "ensure_redis", "mark_job", "job_state", "job_states", "redis_status", "set_cancelled"]


def hash_key(cid: str) -> str:
    return f"{PREFIX}campaign:{cid}"


def jobs_key(cid: str) -> str:
    return f"{PREFIX}campaign:{cid}:jobs"


def ensure_redis(r, camp: Campaign, status: str | None = None) -> None:
    """Write the campaign hash (idempotent; rebuilds it after a Redis flush)."""
    status = status or (CampaignStatus.CANCELLED if camp.cancelled else CampaignStatus.RUNNING)
    pipe = r.pipeline()
    pipe.hset(hash_key(camp.campaign_id), mapping={
        "status": status, "variant": camp.variant, "tier": camp.tier, "jobs": len(camp.jobs),
        "created": camp.created})
    pipe.sadd(CAMPAIGNS_SET, camp.campaign_id)
    pipe.execute()


def set_cancelled(cfg, r, cid: str) -> Campaign:
    camp = load_campaign(cfg, cid)
    camp.cancelled = True
    save_campaign(cfg, camp)
    ensure_redis(r, camp, CampaignStatus.CANCELLED)
    return camp


def mark_job(r, cid: str, job_id: str, state: JobState, **info) -> None:
    r.hset(jobs_key(cid), job_id, json.dumps({"state": state, "ts": time.time(), **info}))


def job_state(r, cid: str, job_id: str) -> JobState | None:
    """The recorded state of one job (None if unknown or unreadable)."""
    raw = r.hget(jobs_key(cid), job_id)
    try:
        return JobState(json.loads(raw)["state"]) if raw else None
    except (ValueError, KeyError, TypeError):
        return None


def job_states(r, cid: str) -> dict[str, dict]:
    out = {}
    for k, v in (r.hgetall(jobs_key(cid)) or {}).items():
        try:
            out[k] = json.loads(v)
        except ValueError:
            continue
    return out


def redis_status(r, cid: str) -> dict[str, str]:
    return r.hgetall(hash_key(cid)) or {}
