"""Finalizing a fleet campaign: its campaign record written once, when every planned job is recorded.

:func:`finalize` is idempotent and re-entrant: the counters (:mod:`swarmgym.queue.counters`) decide
completeness in O(1); one caller at a time holds the claim; the campaign record is written once (its
job_id is unique); a crash anywhere leaves a state the next call (reconcile, a redelivered record)
finishes.  Cost: linear in this campaign's records, plus one small campaign record per earlier campaign
of its variant (choosing the baseline of change detection).  Afterwards the campaign's Redis footprint
is a small summary; BENCHMARK.md and the CSVs (the whole ledger) are rebuilt by their own task, and a
schedule's ``on_change`` alarm runs in its own task.
"""
from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor

from swarmgym.campaigns.finalize import campaign_summary
from swarmgym.core.errors import SwarmgymError
from swarmgym.ledger import campaign_job_id
from swarmgym.queue import counters, keys, plans, store
from swarmgym.queue.ledgers import ledger_for, writer_for
from swarmgym.queue.redis_util import for_config
from swarmgym.queue.routing import COORDINATOR_QUEUE, variant_queue
from swarmgym.trend.alarm import wanted

log = logging.getLogger(__name__)


def live_host_weights(app, variant: str, timeout: float = 0.5) -> dict[str, float]:
    """Hosts whose workers consume ``variant.<v>``, weighted by their concurrency.  The two broadcasts
    run at once: finalize waits ``timeout`` once, not twice."""
    try:
        insp = app.control.inspect(timeout=timeout)
        with ThreadPoolExecutor(2) as ex:
            fq, fs = ex.submit(insp.active_queues), ex.submit(insp.stats)
            queues, stats = fq.result() or {}, fs.result() or {}
    except Exception as e:
        log.warning("inspect failed: %s", e)
        return {}
    want = variant_queue(variant)
    out: dict[str, float] = {}
    for node, qs in queues.items():
        if any(q.get("name") == want for q in qs or []):
            host = node.split("@", 1)[-1]
            conc = (stats.get(node) or {}).get("pool", {}).get("max-concurrency") or 1
            out[host] = out.get(host, 0.0) + float(conc)
    return out


def rebuild_counters(cfg, r, cid: str) -> dict | None:
    """Redis lost a campaign's counters (flush, restart without persistence): rebuild them from the
    plan and the ledger, once (linear in the campaign), and note when (``flushed_at``: reconcile then
    re-sends what nobody runs, :mod:`swarmgym.queue.reconciling`)."""
    try:
        camp = plans.find(cfg, cid, r)
    except SwarmgymError as e:
        log.error("counters of %s: %s", cid, e)
        return None
    store.ensure_redis(r, camp, recorded=ledger_for(cfg).overall_by_job(cid), ttl=cfg.queue.result_expires)
    if r.hsetnx(keys.campaign(cid), "flushed_at", round(time.time(), 3)):
        log.warning("campaign %s: Redis lost its state (restarted without persistence, or flushed): counters "
                    "rebuilt from the plan and the ledger; reconcile re-sends what nobody runs", cid)
    return counters.snapshot(r, cid, recent=0)


def summarize(cfg, r, cid: str, rec, secs: float | None = None) -> None:
    data = rec.data or {}
    counters.summarize(r, cid, ttl=cfg.queue.summary_ttl, overall=rec.overall,
                       findings=len(data.get("findings") or []), recorded=data.get("jobs"),
                       planned=data.get("planned"), finalize_secs=secs,
                       drop=[keys.campaign_lost(cid), keys.plan(cid), keys.campaign_leased(cid)])


def finalize(app, cfg, cid: str) -> dict:
    """Write the campaign record once every planned job is recorded (see the module's doc)."""
    ledger = ledger_for(cfg)
    r = for_config(cfg)
    done = ledger.find(campaign_job_id(cid))
    if done:
        summarize(cfg, r, cid, done[0])
        return {"campaign_id": cid, "status": "finalized", "already": True}
    snap = counters.snapshot(r, cid, recent=0) or rebuild_counters(cfg, r, cid)
    if snap is None:
        return {"campaign_id": cid, "status": "unknown", "error": f"campaign {cid!r}: no plan"}
    if not counters.complete(snap):
        return {"campaign_id": cid, "status": "incomplete", "missing": snap["planned"] - snap["recorded"]}
    token = counters.claim(r, cid)
    if token is None:
        return {"campaign_id": cid, "status": "busy"}
    try:
        return _finalize_claimed(app, cfg, r, cid)
    finally:
        counters.release(r, cid, token)


def _finalize_claimed(app, cfg, r, cid: str) -> dict:
    t0 = time.monotonic()
    ledger = ledger_for(cfg)
    done = ledger.find(campaign_job_id(cid))
    if done:  # another process finished while we waited for the claim
        summarize(cfg, r, cid, done[0])
        return {"campaign_id": cid, "status": "finalized", "already": True}
    try:
        camp = plans.find(cfg, cid, r)
    except SwarmgymError as e:
        log.error("finalize %s: %s", cid, e)
        return {"campaign_id": cid, "status": "unknown", "error": str(e)}
    recs = ledger.records(kind="session", campaign_id=cid)
    missing = {j.job_id for j in camp.jobs} - {x.job_id for x in recs}
    if missing:  # counters disagree with the ledger (a rebuilt Redis): trust the ledger, recount
        log.warning("finalize %s: counters said complete but %d job(s) have no record; recounting", cid, len(missing))
        r.delete(keys.campaign(cid))
        rebuild_counters(cfg, r, cid)
        return {"campaign_id": cid, "status": "incomplete", "missing": len(missing)}
    weights = {camp.pin_host: 1.0} if camp.pin_host else live_host_weights(app, camp.variant)

    rec = campaign_summary(cfg, ledger, camp, recs, weights)  # cluster health + the change against the baseline
    written = writer_for(cfg).write(rec)
    secs = round(time.monotonic() - t0, 3)
    summarize(cfg, r, cid, rec, secs)
    if written:
        request_alarm(app, cfg, rec)
    request_reports(app, r)
    return {"campaign_id": cid, "status": "finalized", "written": written, "jobs": len(recs),
            "findings": len(rec.data.get("findings") or []), "secs": secs,
            "change": rec.change.verdict if rec.change else None}


def request_alarm(app, cfg, rec) -> bool:
    """The record is written: if its schedule's ``on_change`` wants this verdict, run it in its own task
    (acknowledged when it ends, so a coordinator that dies mid-alarm runs it again)."""
    if wanted(cfg, rec) is None:
        return False
    app.send_task(keys.CAMPAIGN_ALARM, args=[rec.campaign_id], queue=COORDINATOR_QUEUE, ignore_result=True)
    return True


def request_reports(app, r) -> bool:
    """Ask for BENCHMARK.md + CSVs to be rebuilt (they cover the whole ledger, so not inside finalize,
    whose cost stays linear in its campaign).  Requests coalesce: one pending regeneration at a time."""
    if not r.set(keys.REPORTS_PENDING, "1", nx=True, ex=3600):
        return False
    app.send_task(keys.REGENERATE_REPORTS, queue=COORDINATOR_QUEUE, ignore_result=True)
    return True
