"""Reconcile: the coordinator's auto-resume, with no person involved (beat, the watchdog, ``resume``).

One pass takes jobs from dead and restarted hosts (:func:`swarmgym.queue.deadhosts.sweep`), finalizes
campaigns whose jobs are all recorded (their finalize died), and re-sends jobs nobody has: not recorded,
not queued, not running (:func:`swarmgym.queue.dispatch.lost_jobs`).  A job counts as lost after
``queue.lost_grace``, except when Redis lost the campaign's state (a restart without persistence, a
flush): then the pass rebuilds the counters from the plan and the ledger at once, says so in the log,
and sends itself again :data:`FLUSH_SETTLE` seconds later — time for the hosts to reconnect — when every
job nobody runs (no message, no lease, no running entry, and no host says it runs it) is re-sent.  A
Redis restart is thus recovered within the watchdog's tick (at most 5 s: it notices that Redis lost every
key), the settle time and one pass — never a ``reconcile_secs`` period later.
"""
from __future__ import annotations

import logging
import time

from swarmgym.core.errors import SwarmgymError
from swarmgym.ledger import campaign_job_id
from swarmgym.queue import counters, deadhosts, dispatch, keys, liveness, plans
from swarmgym.queue.finalizing import finalize, rebuild_counters
from swarmgym.queue.ledgers import ledger_for
from swarmgym.queue.redis_util import for_config
from swarmgym.queue.routing import COORDINATOR_QUEUE

log = logging.getLogger(__name__)
FLUSH_SETTLE = 5.0  # seconds for hosts to reconnect and set their leases again after Redis lost its keys
ENQUEUE_WINDOW = 10.0  # a campaign created this little before its state was missed may still be being enqueued


def reconcile_all(app, cfg, grace: float | None = None) -> dict:
    """One pass over every campaign this coordinator knows; returns what it did."""
    grace = cfg.queue.lost_grace if grace is None else grace
    out: dict = {"finalized": [], "requeued": {}, "dead": deadhosts.sweep(app, cfg), "settling": []}
    ledger = ledger_for(cfg)
    r = for_config(cfg)
    since = liveness.broker_since(r)
    active: set[str] | None = None  # asked of the hosts once per pass, and only after a loss
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
        lost_at = flush_seen(cfg, r, camp)
        if lost_at is None:
            out["settling"].append(cid)
            continue
        if lost_at:
            if active is None:
                active = dispatch.active_job_ids(app)
            enqueuing = (since is None or camp.created >= since) and lost_at - camp.created < ENQUEUE_WINDOW
            lost = dispatch.lost_jobs(cfg, camp, grace if enqueuing else 0.0, busy=active)
            r.hdel(keys.campaign(cid), "flushed_at")
        else:
            lost = dispatch.lost_jobs(cfg, camp, grace)
        if lost:
            why = "lost with Redis's state (a restart or a flush)" if lost_at else "lost (no message, no lease)"
            log.warning("reconcile %s: re-sending %d job(s) %s: %s", cid, len(lost), why,
                        ", ".join(j.job_id for j in lost[:10]) + (" …" if len(lost) > 10 else ""))
            dispatch.requeue(app, cfg, camp, lost)
            out["requeued"][cid] = [j.job_id for j in lost]
    if out["settling"]:
        app.send_task(keys.RECONCILE, queue=COORDINATOR_QUEUE, ignore_result=True, countdown=FLUSH_SETTLE,
                      expires=FLUSH_SETTLE + max(30.0, cfg.queue.reconcile_secs))
    return out


def flush_seen(cfg, r, camp) -> float | None:
    """Did Redis lose the campaign's state (a restart without persistence, a flush)?  When it just did (its
    counters are missing, or were rebuilt less than :data:`FLUSH_SETTLE` seconds ago by a record that found
    them missing), they are rebuilt, the reason logged, and None returned (hosts need a moment to reconnect
    and set their leases again); on a later pass, the time the loss was seen; else 0."""
    key = keys.campaign(camp.campaign_id)
    if not r.exists(key):
        rebuild_counters(cfg, r, camp.campaign_id)  # notes flushed_at, and says so in the log
        return None
    at = float(r.hget(key, "flushed_at") or 0)
    if at and time.time() - at < FLUSH_SETTLE:
        return None
    return at
