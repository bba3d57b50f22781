"""Coordinator tasks (queue ``coordinator``; this worker is the only ledger writer).

``record_job``        accepted only when signed by a known host for a job it leased (:mod:`swarmgym.queue.accept`);
                      idempotent upsert of one JobResult into the ledger (duplicates change nothing),
                      batched with concurrent records (:class:`GroupWriter`), then counted
                      (:mod:`swarmgym.queue.counters`); the record that completes a campaign finalizes it.
                      The host's run folder rides in the same message (``artefacts``, capped) and is
                      unpacked into ``runs/<session_id>/`` once the record is accepted
``finalize_campaign`` reads the *ledger* (not its arguments), runs the campaign monitor, compares the
                      campaign with its baseline (:mod:`swarmgym.campaigns.finalize`), writes a ``kind="campaign"``
                      record, leaves a summary in Redis, asks for the reports and, when the schedule
                      wants it, the ``on_change`` alarm
``campaign_alarm``    runs a schedule's ``on_change`` command once the campaign record is written
``regenerate_reports`` BENCHMARK.md + CSVs from the whole ledger (coalesced requests)
``reconcile``         periodic (beat) and callable: finalizes complete campaigns, re-sends lost jobs

No task keeps a result: nobody reads them (Flower shows task outcomes from events).
"""
from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import redis
from celery import shared_task

from swarmgym.campaigns.finalize import campaign_summary
from swarmgym.core.errors import SwarmgymError
from swarmgym.ledger import Ledger, campaign_job_id, record_from_result
from swarmgym.ledger.batch import GroupWriter
from swarmgym.models import JobResult
from swarmgym.queue import counters, deadhosts, dispatch, durable, keys, store
from swarmgym.queue.accept import check_record
from swarmgym.queue.appconfig import app_config
from swarmgym.queue.redis_util import for_config
from swarmgym.queue.routing import COORDINATOR_QUEUE, variant_queue
from swarmgym.reports import regenerate
from swarmgym.trend.alarm import fire_for, wanted
from swarmgym.workers.artefacts import unpack

log = logging.getLogger(__name__)
_LEDGERS: dict = {}
_WRITERS: dict = {}
_MAKE = threading.Lock()


def ledger_for(cfg):
    key = str(cfg.ledger_dir)
    with _MAKE:
        if key not in _LEDGERS:
            _LEDGERS[key] = Ledger(cfg.ledger_dir)
        return _LEDGERS[key]


def writer_for(cfg) -> GroupWriter:
    """The one group-commit writer of this process's ledger (record_job threads share it)."""
    ledger = ledger_for(cfg)
    with _MAKE:
        key = str(cfg.ledger_dir)
        if key not in _WRITERS:
            _WRITERS[key] = GroupWriter(ledger)
        return _WRITERS[key]


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


def _rebuild_counters(cfg, r, cid: str) -> dict | None:
    """Redis lost a campaign's counters (flush, restart without persistence): rebuild them from the
    plan and the ledger, once (linear in the campaign)."""
    try:
        camp = store.load_campaign(cfg, cid)
    except SwarmgymError as e:
        log.error("counters of %s: %s", cid, e)
        return None
    store.ensure_redis(r, camp, recorded=ledger_for(cfg).overall_by_job(cid), ttl=cfg.queue.result_expires)
    return counters.snapshot(r, cid, recent=0)


def _summarize(cfg, r, cid: str, rec, secs: float | None = None) -> None:
    data = rec.data or {}
    counters.summarize(r, cid, ttl=cfg.queue.summary_ttl, overall=rec.overall,
                       findings=len(data.get("findings") or []), recorded=data.get("jobs"),
                       planned=data.get("planned"), finalize_secs=secs,
                       drop=[keys.campaign_lost(cid), keys.plan(cid), keys.campaign_leased(cid)])


def finalize(app, cfg, cid: str) -> dict:
    """Write the campaign record once every planned job is recorded.  Idempotent and re-entrant:
    counters decide completeness in O(1); one caller at a time holds the claim; the campaign record
    is written once (its job_id is unique); a crash anywhere leaves a state the next call (reconcile,
    a redelivered record) finishes.  Cost: linear in this campaign's records, plus one small campaign
    record per earlier campaign of its variant (choosing the baseline of change detection)."""
    ledger = ledger_for(cfg)
    r = for_config(cfg)
    done = ledger.find(campaign_job_id(cid))
    if done:
        _summarize(cfg, r, cid, done[0])
        return {"campaign_id": cid, "status": "finalized", "already": True}
    snap = counters.snapshot(r, cid, recent=0) or _rebuild_counters(cfg, r, cid)
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
        _summarize(cfg, r, cid, done[0])
        return {"campaign_id": cid, "status": "finalized", "already": True}
    try:
        camp = store.load_campaign(cfg, cid)
    except SwarmgymError as e:
        log.error("finalize %s: %s", cid, e)
        return {"campaign_id": cid, "status": "unknown", "error": str(e)}
    recs = ledger.records(kind="session", campaign_id=cid)
    missing = {j.job_id for j in camp.jobs} - {x.job_id for x in recs}
    if missing:  # counters disagree with the ledger (a rebuilt Redis): trust the ledger, recount
        log.warning("finalize %s: counters said complete but %d job(s) have no record; recounting", cid, len(missing))
        r.delete(keys.campaign(cid))
        _rebuild_counters(cfg, r, cid)
        return {"campaign_id": cid, "status": "incomplete", "missing": len(missing)}
    weights = {camp.pin_host: 1.0} if camp.pin_host else live_host_weights(app, camp.variant)

    rec = campaign_summary(cfg, ledger, camp, recs, weights)  # cluster health + the change against the baseline
    written = writer_for(cfg).write(rec)
    secs = round(time.monotonic() - t0, 3)
    _summarize(cfg, r, cid, rec, secs)
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


@shared_task(name=keys.CAMPAIGN_ALARM, bind=True, acks_late=True, ignore_result=True)
def campaign_alarm(self, campaign_id: str) -> dict:
    """Run the schedule's ``on_change`` command for a finalized campaign (failures logged, retried once)."""
    cfg = app_config(self.app)
    found = ledger_for(cfg).find(campaign_job_id(campaign_id))
    if not found:
        return {"campaign_id": campaign_id, "alarm": "no campaign record"}
    out = fire_for(cfg, found[0])
    return {"campaign_id": campaign_id, "alarm": out.describe() if out else "not wanted"}


def request_reports(app, r) -> bool:
    """Ask for BENCHMARK.md + CSVs to be rebuilt (they cover the whole ledger, so not inside finalize,
    whose cost stays linear in its campaign).  Requests coalesce: one pending regeneration at a time."""
    if not r.set(keys.REPORTS_PENDING, "1", nx=True, ex=3600):
        return False
    app.send_task(keys.REGENERATE_REPORTS, queue=COORDINATOR_QUEUE, ignore_result=True)
    return True


@shared_task(name=keys.REGENERATE_REPORTS, bind=True, acks_late=True, ignore_result=True)
def regenerate_reports(self) -> dict:
    cfg = app_config(self.app)
    for_config(cfg).delete(keys.REPORTS_PENDING)  # a campaign finalized from now on asks again
    try:
        return {"reports": [str(p) for p in regenerate(cfg)]}
    except Exception as e:  # the records stand even if a report could not be written
        log.exception("reports not regenerated")
        return {"error": str(e)[:500]}


def _retry(task, r, exc: BaseException, what: str):
    """Make the failure visible, then retry with backoff, forever (see :mod:`swarmgym.queue.durable`)."""
    durable.failing(r, exc, what)
    return task.retry(exc=durable.as_ledger_error(exc), countdown=durable.backoff(task.request.retries),
                      max_retries=None)


@shared_task(name=keys.RECORD_JOB, bind=True, acks_late=True, ignore_result=True, max_retries=None,
             autoretry_for=(redis.RedisError,), retry_backoff=2, retry_backoff_max=30)
def record_job(self, result: dict, artefacts: str | None = None, signature: dict | None = None) -> dict:
    if not isinstance(result, dict) or result.get("duplicate") or result.get("cancelled") or result.get("invalid"):
        return {"ignored": True}
    cfg = app_config(self.app)
    try:
        res = JobResult.model_validate(result)
    except ValueError as e:
        log.error("record_job: not a JobResult: %s", str(e).splitlines()[0])
        return {"ignored": True, "error": str(e)[:500]}

    if (refused := check_record(cfg, for_config(cfg), res, result, artefacts, signature)) is not None:
        return refused
    rec = record_from_result(res)
    if res.pool:
        rec.data["pool"] = [p.model_dump(mode="json") for p in res.pool]
    r = for_config(cfg)
    try:
        new = writer_for(cfg).write(rec)  # batched with the other threads' records; durable on return
    except durable.WRITE_ERRORS as e:
        raise _retry(self, r, e, res.job.job_id) from None
    durable.ok(r)
    if artefacts and (new or not (cfg.runs_dir / res.session_id).exists()):  # accepted records only; a redelivery finishes
        store_artefacts(cfg, res.session_id, artefacts)
    cid = res.job.campaign_id
    code, n, planned = counters.record(r, cid, res.job.job_id, host=res.host, overall=rec.overall)
    if code == -3:
        snap = _rebuild_counters(cfg, r, cid) or {}
        n, planned = snap.get("recorded", 0), snap.get("planned", 0)
    out = {"job_id": res.job.job_id, "recorded": new}
    if code != -1 and planned and n >= planned:  # this record completed the campaign (or a retry of it)
        out["finalize"] = finalize(self.app, cfg, cid)
    return out


def store_artefacts(cfg, session_id: str, payload: str) -> None:
    """Unpack a recorded job's shipped run folder into ``runs/<session_id>/``; a bad bundle is logged,
    never a reason to lose the record it came with."""
    try:
        unpack(payload, cfg.runs_dir, session_id)
    except Exception:
        log.exception("artefacts of %s not stored", session_id)


@shared_task(name=keys.FINALIZE_CAMPAIGN, bind=True, acks_late=True, ignore_result=True, max_retries=None,
             autoretry_for=(redis.RedisError,), retry_backoff=2, retry_backoff_max=30)
def finalize_campaign(self, campaign_id: str, *_ignored) -> dict:
    cfg = app_config(self.app)
    try:
        out = finalize(self.app, cfg, campaign_id)
    except durable.WRITE_ERRORS as e:
        raise _retry(self, for_config(cfg), e, campaign_job_id(campaign_id)) from None
    durable.ok(for_config(cfg))
    return out


def reconcile_all(app, cfg, grace: float | None = None) -> dict:
    """Auto-resume, with no person involved: take jobs from dead hosts, re-send jobs nobody has (a
    flushed Redis lost them: re-sent at once, not after ``lost_grace``), finalize campaigns whose
    jobs are all recorded (their finalize died).  ``swarmgym resume`` is the same for one campaign."""
    grace = cfg.queue.lost_grace if grace is None else grace
    out: dict = {"finalized": [], "requeued": {}, "dead": deadhosts.sweep(app, cfg)}
    ledger = ledger_for(cfg)
    r = for_config(cfg)
    for cid in store.list_campaigns(cfg):
        snap = counters.snapshot(r, cid, recent=0)
        if (snap or {}).get("status") == "finalized" or ledger.has_job(campaign_job_id(cid)):
            continue
        if counters.complete(snap):  # every job recorded, the finalize died or never ran: O(1) to know
            if finalize(app, cfg, cid).get("status") == "finalized":
                out["finalized"].append(cid)
            continue
        try:
            camp = store.load_campaign(cfg, cid)
        except SwarmgymError:
            continue
        if camp.mode != "queue" or camp.cancelled:
            continue
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
        _rebuild_counters(cfg, r, camp.campaign_id)
        r.hset(key, "flushed_at", round(time.time(), 3))
        return None
    at = float(r.hget(key, "flushed_at") or 0)
    if at and time.time() - at < FLUSH_SETTLE:
        return None
    return bool(at)


FLUSH_SETTLE = 2.0  # seconds for leases and running entries to come back after a flush
ENQUEUE_WINDOW = 30.0  # a campaign younger than this may still be being enqueued: lost_grace applies


@shared_task(name=keys.RECONCILE, bind=True, ignore_result=True)
def reconcile(self, grace: float | None = None) -> dict:
    return reconcile_all(self.app, app_config(self.app), grace)
