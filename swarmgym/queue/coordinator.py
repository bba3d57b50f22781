"""Coordinator tasks (queue ``coordinator``; this worker is the only ledger writer): thin shells.

``record_job``         a host's signed result into the ledger (:mod:`swarmgym.queue.recording`); the record
                       that completes a campaign's counters finalizes it
``finalize_campaign``  the campaign record, once (:mod:`swarmgym.queue.finalizing`); sent by reconcile or by hand
``campaign_alarm``     a schedule's ``on_change`` command, once the campaign record is written
``regenerate_reports`` BENCHMARK.md + CSVs from the whole ledger (coalesced requests)
``reconcile``          periodic (beat, the watchdog) and callable: finalizes complete campaigns, re-sends
                       dead hosts' and lost jobs (:mod:`swarmgym.queue.reconciling`)
``ask``                (queue ``coordinator.ask``) answers the CLI from this home's plans and ledger
                       (:mod:`swarmgym.queue.asking`)

A ledger write that fails is retried with backoff, forever (:mod:`swarmgym.queue.durable`).  No task
keeps a result: nobody reads them (Flower shows task outcomes from events).
"""
from __future__ import annotations

import logging

import redis
from celery import shared_task

from swarmgym.campaigns.records import Answer, Ask
from swarmgym.ledger import campaign_job_id
from swarmgym.queue import asking, durable, keys
from swarmgym.queue.appconfig import app_config
from swarmgym.queue.finalizing import finalize
from swarmgym.queue.ledgers import ledger_for
from swarmgym.queue.reconciling import reconcile_all
from swarmgym.queue.recording import record
from swarmgym.queue.redis_util import for_config
from swarmgym.reports import regenerate
from swarmgym.trend.alarm import fire_for

log = logging.getLogger(__name__)


def _retry(task, exc: BaseException, what: str):
    """Make the failure visible, then retry with backoff, forever (see :mod:`swarmgym.queue.durable`)."""
    durable.failing(for_config(app_config(task.app)), exc, what)
    return task.retry(exc=durable.as_ledger_error(exc), countdown=durable.backoff(task.request.retries),
                      max_retries=None)


@shared_task(name=keys.RECORD_JOB, bind=True, acks_late=True, ignore_result=True, max_retries=None,
             autoretry_for=(redis.RedisError,), retry_backoff=2, retry_backoff_max=30)
def record_job(self, result: dict, artefacts: str | None = None, signature: dict | None = None) -> dict:
    try:
        return record(self.app, app_config(self.app), result, artefacts, signature)
    except durable.WRITE_ERRORS as e:
        job = (result.get("job") or {}).get("job_id", "?") if isinstance(result, dict) else "?"
        raise _retry(self, e, job) from None


@shared_task(name=keys.FINALIZE_CAMPAIGN, bind=True, acks_late=True, ignore_result=True, max_retries=None,
             autoretry_for=(redis.RedisError,), retry_backoff=2, retry_backoff_max=30)
def finalize_campaign(self, campaign_id: str, *_ignored) -> dict:
    cfg = app_config(self.app)
    try:
        out = finalize(self.app, cfg, campaign_id)
    except durable.WRITE_ERRORS as e:
        raise _retry(self, e, campaign_job_id(campaign_id)) from None
    durable.ok(for_config(cfg))
    return out


@shared_task(name=keys.CAMPAIGN_ALARM, bind=True, acks_late=True, ignore_result=True)
def campaign_alarm(self, campaign_id: str) -> dict:
    """Run the schedule's ``on_change`` command for a finalized campaign (failures logged, retried once)."""
    cfg = app_config(self.app)
    found = ledger_for(cfg).find(campaign_job_id(campaign_id))
    if not found:
        return {"campaign_id": campaign_id, "alarm": "no campaign record"}
    out = fire_for(cfg, found[0])
    return {"campaign_id": campaign_id, "alarm": out.describe() if out else "not wanted"}


@shared_task(name=keys.REGENERATE_REPORTS, bind=True, acks_late=True, ignore_result=True)
def regenerate_reports(self) -> dict:
    cfg = app_config(self.app)
    for_config(cfg).delete(keys.REPORTS_PENDING)  # a campaign finalized from now on asks again
    try:
        return {"reports": [str(p) for p in regenerate(cfg)]}
    except Exception as e:  # the records stand even if a report could not be written
        log.exception("reports not regenerated")
        return {"error": str(e)[:500]}


@shared_task(name=keys.RECONCILE, bind=True, ignore_result=True)
def reconcile(self, grace: float | None = None) -> dict:
    return reconcile_all(self.app, app_config(self.app), grace)


@shared_task(name=keys.ASK, bind=True, ignore_result=True)
def ask(self, question: dict, reply_to: str) -> dict:
    cfg = app_config(self.app)
    r = for_config(cfg)
    try:
        q = Ask.model_validate(question)
    except ValueError as e:
        answer = Answer(error=f"ask: not a question ({str(e).splitlines()[0]})")
    else:
        answer = asking.CoordinatorSource(cfg, r).ask(q)
    asking.reply(r, reply_to, answer)
    return {"ask": question.get("kind") if isinstance(question, dict) else None, "error": answer.error}
