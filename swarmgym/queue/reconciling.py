"""Reconcile: the coordinator's auto-resume, with no person involved (beat, the watchdog, ``resume``).

One pass takes jobs from dead hosts (:func:`swarmgym.queue.deadhosts.sweep`), finalizes campaigns whose
jobs are all recorded (their finalize died), and re-sends jobs nobody has: not recorded, not queued,
not running (:func:`swarmgym.queue.dispatch.lost_jobs`).  A job counts as lost after
``queue.lost_grace``, except when Redis lost the campaign's state (a flush, a restart without
persistence): the counters are rebuilt at once, and once the hosts had a moment to set their leases
again (:data:`FLUSH_SETTLE`) every job nobody runs is re-sent.
"""
from __future__ import annotations

import logging
import time

from swarmgym.core.errors import SwarmgymError
from swarmgym.ledger import campaign_job_id
from swarmgym.queue import counters, deadhosts, dispatch, keys, plans
from swarmgym.queue.finalizing import finalize, rebuild_counters
from swarmgym.queue.ledgers import ledger_for
from swarmgym.queue.redis_util import for_config

log = logging.getLogger(__name__)
FLUSH_SETTLE = 2.0  # seconds for leases and running entries to come back after a flush
ENQUEUE_WINDOW = 30.0  # a campaign younger than this may still be being enqueued: lost_grace applies


def reconcile_all(app, cfg, grace: float | None = None) -> dict:
    """One pass over every campaign this coordinator knows; returns what it did."""
    grace = cfg.queue.lost_grace if grace is None else grace
    out: dict = {"finalized": [], "requeued": {}, "dead": deadhosts.sweep(app, cfg)}
    ledger = ledger_for(cfg)
    r = for_config(cfg)
    for cid in plans.list_all(cfg, r):
        snap = counters.snapshot(r, cid, recent=0)
        if (snap or {}).get("status") == "finalized" or ledger.has_job(campaign_job_id(cid)):
            continue
        if counters.complete(snap):  # every job recorded, the finalize died or never ran: O(1) to know
            if finalize(app, cfg, cid).get("status") == "finalized":
                out["finalized"].append(cid)
            continue
        try:
            camp = plans.find(cfg, cid, r)
        except SwarmgymError:
            continue
        if camp.mode != "queue" or camp.cancelled or (snap or {}).get("status") == "cancelled":
            continue  # cancelled: by the plan, or in the broker (a `cancel` no coordinator was alive to hear)
        if snap is None and not dispatch.pending(cfg, camp):
            if finalize(app, cfg, cid).get("status") == "finalized":
                out["finalized"].append(cid)
            continue
        flushed = flush_seen(cfg, r, camp)
        if flushed is None:
            continue  # Redis just lost it: the next pass acts, once leases are back
        lost = dispatch.lost_jobs(cfg, camp, 0.0 if flushed and time.time() - camp.created > ENQUEUE_WINDOW
                                  else grace)
        if flushed:
            r.hdel(keys.campaign(cid), "flushed_at")
        if lost:
            log.warning("reconcile %s: re-sending %d lost job(s)", cid, len(lost))
            dispatch.requeue(app, cfg, camp, lost)
            out["requeued"][cid] = [j.job_id for j in lost]
    return out


def flush_seen(cfg, r, camp) -> bool | None:
    """Did Redis lose the campaign's state (a flush, a restart without persistence)?  None when it just
    did (the counters are rebuilt now; hosts' lease renewers need a moment to set their leases again),
    True on a later pass once they have, False otherwise."""
    key = keys.campaign(camp.campaign_id)
    if not r.exists(key):
        rebuild_counters(cfg, r, camp.campaign_id)
        r.hset(key, "flushed_at", round(time.time(), 3))
        return None
    at = float(r.hget(key, "flushed_at") or 0)
    if at and time.time() - at < FLUSH_SETTLE:
        return None
    return bool(at)
