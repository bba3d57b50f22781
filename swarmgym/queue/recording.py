"""Recording a host's result: the coordinator's one ledger write per job.

A result is recorded only when :mod:`swarmgym.queue.accept` accepts it (signed by a known host, for a
planned job that host leased); the write is batched with the other ``record_job`` threads' and durable
on return (a write that fails raises one of :data:`swarmgym.queue.durable.WRITE_ERRORS`: the task
retries it through the broker).  The ledger is idempotent by job_id and the counters count a job once,
so a duplicate delivery changes nothing; the run folder that rode with the result is unpacked only for
an accepted record; the record that completes the campaign's counters finalizes it.
"""
from __future__ import annotations

import logging

from swarmgym.ledger import record_from_result
from swarmgym.models import JobResult
from swarmgym.queue import bundle, counters, durable
from swarmgym.queue.accept import check_record
from swarmgym.queue.finalizing import finalize, rebuild_counters
from swarmgym.queue.ledgers import writer_for
from swarmgym.queue.redis_util import for_config

log = logging.getLogger(__name__)


def record(app, cfg, result: dict, payload: str | None = None, signature: dict | None = None) -> dict:
    """Record ``result`` (a JobResult as the host sent it) and its run-folder ``payload``; what the
    ``record_job`` task returns."""
    if not isinstance(result, dict) or result.get("duplicate") or result.get("cancelled") or result.get("invalid"):
        return {"ignored": True}
    try:
        res = JobResult.model_validate(result)
    except ValueError as e:
        log.error("record_job: not a JobResult: %s", str(e).splitlines()[0])
        return {"ignored": True, "error": str(e)[:500]}
    r = for_config(cfg)
    if (refused := check_record(cfg, r, res, result, payload, signature)) is not None:
        return refused
    rec = record_from_result(res)
    if res.pool:
        rec.data["pool"] = [p.model_dump(mode="json") for p in res.pool]
    new = writer_for(cfg).write(rec)  # batched with the other threads' records; durable on return
    durable.ok(r)
    if payload and (new or not (cfg.runs_dir / res.session_id).exists()):  # accepted records only; a redelivery finishes
        store_artefacts(cfg, res.session_id, payload)
    cid = res.job.campaign_id
    code, n, planned = counters.record(r, cid, res.job.job_id, host=res.host, overall=rec.overall)
    if code == -3:
        snap = rebuild_counters(cfg, r, cid) or {}
        n, planned = snap.get("recorded", 0), snap.get("planned", 0)
    out = {"job_id": res.job.job_id, "recorded": new}
    if code != -1 and planned and n >= planned:  # this record completed the campaign (or a retry of it)
        out["finalize"] = finalize(app, cfg, cid)
    return out


def store_artefacts(cfg, session_id: str, payload: str) -> None:
    """Unpack a recorded job's shipped run folder into ``runs/<session_id>/``; a bad bundle is logged,
    never a reason to lose the record it came with."""
    try:
        bundle.unpack(payload, cfg.runs_dir, session_id)
    except Exception:
        log.exception("artefacts of %s not stored", session_id)
