"""A campaign's state in Redis, as the queue moves it: the campaign hash and the per-job states.

The plan (``runs/campaigns/<cid>.json`` and ``swarmgym:plan:<cid>``, :mod:`swarmgym.queue.plans`) holds
the JobSpecs and the ``cancelled`` flag: it survives a Redis flush, so reconcile and ``resume`` work
from it and the ledger.  Redis keeps the campaign hash (status ``running`` | ``cancelled`` |
``finalized`` and the counters) and the per-job states: :mod:`swarmgym.queue.counters` owns them.
:func:`ensure_redis` recreates the hash from the plan after a flush.
"""
from __future__ import annotations

from swarmgym.campaigns.plan import Campaign
from swarmgym.queue import counters, keys

__all__ = ["ensure_redis", "mark_job", "job_states", "redis_status"]


def ensure_redis(r, camp: Campaign, status: str | None = None, recorded: dict[str, str] | None = None,
                 ttl: int = 604800, opening: bool = True) -> None:
    """Write the campaign hash (idempotent: counters are kept).  If Redis lost it and ``recorded``
    (job_id -> overall, from the ledger) is given, the counters are rebuilt from the plan and it.
    ``opening=False``: not the campaign's opening (a hash created now gets no epoch, see
    :func:`counters.intact`)."""
    status = status or ("cancelled" if camp.cancelled else "running")
    if recorded is not None and not r.exists(keys.campaign(camp.campaign_id)):
        counters.rebuild(r, camp.campaign_id, planned=[j.job_id for j in camp.jobs], recorded=recorded,
                         variant=camp.variant, tier=camp.tier, created=camp.created, status=status, ttl=ttl)
        return
    counters.open_campaign(r, camp.campaign_id, planned=len(camp.jobs), variant=camp.variant, tier=camp.tier,
                           created=camp.created, status=status, epoch=opening)


def mark_job(r, cid: str, job_id: str, state: str, *, task_id: str | None = None, host: str | None = None,
             requeued: bool = False, **info) -> None:
    """Move one job to ``queued`` / ``running`` / ``stale`` (a record is :func:`counters.record`)."""
    counters.move(r, cid, job_id, state, counter="requeued" if requeued else "", t=task_id, h=host, **info)



def job_states(r, cid: str) -> dict[str, dict]:
    return counters.job_states(r, cid)


def redis_status(r, cid: str) -> dict[str, str]:
    return r.hgetall(keys.campaign(cid)) or {}
