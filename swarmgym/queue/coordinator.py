"""Coordinator tasks (queue ``coordinator``; this worker is the only ledger writer).

``record_job``        idempotent upsert of one JobResult into the ledger (duplicates change nothing)
``store_artefacts``   unpack a host's shipped run folder into ``runs/<session_id>/``
``finalize_campaign`` the chord body: reads the *ledger* (not its arguments), runs the campaign
                      monitor, writes a ``kind="campaign"`` record, regenerates BENCHMARK.md + CSVs
``reconcile``         periodic (beat) and callable: finalizes complete campaigns, re-sends lost jobs
"""
from __future__ import annotations

import logging
import time

import redis
from celery import shared_task

from swarmgym.errors import LedgerError, SwarmgymError
from swarmgym.models import JobResult
from swarmgym.queue import dispatch, store
from swarmgym.queue.app import app_config
from swarmgym.queue.monitor import campaign_health, campaign_overall, idle_names
from swarmgym.queue.redis_util import for_config
from swarmgym.queue.routing import variant_queue

log = logging.getLogger(__name__)
_LEDGERS: dict = {}


def ledger_for(cfg):
    from swarmgym.ledger import Ledger

    key = str(cfg.ledger_dir)
    if key not in _LEDGERS:
        _LEDGERS[key] = Ledger(cfg.ledger_dir)
    return _LEDGERS[key]


def live_host_weights(app, variant: str, timeout: float = 1.0) -> dict[str, float]:
    """Hosts whose workers consume ``variant.<v>``, weighted by their concurrency."""
    try:
        insp = app.control.inspect(timeout=timeout)
        queues = insp.active_queues() or {}
        stats = insp.stats() or {}
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


def finalize(app, cfg, cid: str) -> dict:
    ledger = ledger_for(cfg)
    r = for_config(cfg)
    try:
        camp = store.load_campaign(cfg, cid)
    except SwarmgymError as e:
        log.error("finalize %s: %s", cid, e)
        return {"campaign_id": cid, "status": "unknown", "error": str(e)}
    if ledger.has_job(f"campaign:{cid}"):
        r.hset(store.hash_key(cid), mapping={"status": "finalized", "finalize_pending": 0})
        return {"campaign_id": cid, "status": "finalized", "already": True}
    recs = ledger.records(kind="session", campaign_id=cid)
    missing = {j.job_id for j in camp.jobs} - {x.job_id for x in recs}
    if missing:
        r.hset(store.hash_key(cid), "finalize_pending", 1)
        log.info("finalize %s: %d job(s) not recorded yet; waiting", cid, len(missing))
        return {"campaign_id": cid, "status": "incomplete", "missing": len(missing)}
    weights = {camp.pin_host: 1.0} if camp.pin_host else live_host_weights(app, camp.variant)
    findings, data = campaign_health(recs, weights)
    started = min((x.data.get("started") or x.ts) for x in recs) if recs else camp.created
    data.update(planned=len(camp.jobs), created=camp.created, makespan_secs=round(time.time() - camp.created, 3),
                first_start=started, status="cancelled" if camp.cancelled else "complete")
    from swarmgym.ledger import campaign_record
    from swarmgym.provenance import campaign_provenance

    rate = data.get("functional_rate")
    rec = campaign_record(cid, variant=camp.variant, tier=camp.tier, overall=campaign_overall(findings),
                          findings=findings, suite=camp.suite, suite_hash=camp.suite_hash,
                          idle_nodes=idle_names(data), data=data, functional=rate == 1.0,
                          provenance=campaign_provenance(camp))
    written = ledger.record(rec)
    reports = []
    try:
        from swarmgym.reports import regenerate

        reports = [str(p) for p in regenerate(cfg)]
    except Exception as e:  # the record stands even if a report could not be written
        log.error("finalize %s: reports not regenerated: %s", cid, e)
    r.hset(store.hash_key(cid), mapping={"status": "finalized", "finalize_pending": 0})
    return {"campaign_id": cid, "status": "finalized", "written": written, "jobs": len(recs),
            "findings": len(findings), "reports": reports}


@shared_task(name="swarmgym.record_job", bind=True, acks_late=True,
             autoretry_for=(LedgerError, redis.RedisError), retry_backoff=2, max_retries=10)
def record_job(self, result: dict) -> dict:
    if not isinstance(result, dict) or result.get("duplicate") or result.get("cancelled") or result.get("invalid"):
        return {"ignored": True}
    cfg = app_config(self.app)
    try:
        res = JobResult.model_validate(result)
    except ValueError as e:
        log.error("record_job: not a JobResult: %s", str(e).splitlines()[0])
        return {"ignored": True, "error": str(e)[:500]}
    from swarmgym.ledger import record_from_result
    from swarmgym.queue.accept import check_record

    if (refused := check_record(cfg, for_config(cfg), res, result)) is not None:
        return refused
    rec = record_from_result(res)
    if res.pool:
        rec.data["pool"] = [p.model_dump(mode="json") for p in res.pool]
    new = ledger_for(cfg).record(rec)
    cid = res.job.campaign_id
    r = for_config(cfg)
    store.mark_job(r, cid, res.job.job_id, "done", host=res.host, overall=rec.overall)
    out = {"job_id": res.job.job_id, "recorded": new}
    if new and r.hget(store.hash_key(cid), "finalize_pending") == "1":
        out["finalize"] = finalize(self.app, cfg, cid)
    return out


@shared_task(name="swarmgym.store_artefacts", bind=True, acks_late=True)
def store_artefacts(self, session_id: str, payload: str) -> dict:
    from workers.artefacts import unpack

    cfg = app_config(self.app)
    try:
        dest = unpack(payload, cfg.runs_dir, session_id)
        return {"session_id": session_id, "path": str(dest)}
    except Exception as e:
        log.error("store_artefacts %s: %s", session_id, e)
        return {"session_id": session_id, "error": str(e)[:500]}


@shared_task(name="swarmgym.finalize_campaign", bind=True, acks_late=True,
             autoretry_for=(LedgerError, redis.RedisError), retry_backoff=2, max_retries=10)
def finalize_campaign(self, campaign_id: str, *_ignored) -> dict:
    return finalize(self.app, app_config(self.app), campaign_id)


def reconcile_all(app, cfg, grace: float | None = None) -> dict:
    grace = cfg.queue.lost_grace if grace is None else grace
    out = {"finalized": [], "requeued": {}}
    ledger = ledger_for(cfg)
    for cid in store.list_campaigns(cfg):
        if ledger.has_job(f"campaign:{cid}"):
            continue
        try:
            camp = store.load_campaign(cfg, cid)
        except SwarmgymError:
            continue
        if camp.mode != "queue" or camp.cancelled:
            continue
        if not dispatch.pending(cfg, camp):
            if finalize(app, cfg, cid).get("status") == "finalized":
                out["finalized"].append(cid)
            continue
        lost = dispatch.lost_jobs(cfg, camp, grace)
        if lost:
            log.warning("reconcile %s: re-sending %d lost job(s)", cid, len(lost))
            dispatch.requeue(app, cfg, camp, lost)
            out["requeued"][cid] = [j.job_id for j in lost]
    return out


@shared_task(name="swarmgym.reconcile", bind=True)
def reconcile(self, grace: float | None = None) -> dict:
    return reconcile_all(self.app, app_config(self.app), grace)
