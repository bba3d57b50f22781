"""Enqueue, resume and cancel campaigns; find jobs that are queued or running.

A campaign goes out as ``run_job`` per JobSpec on its variant/host queue, sent in pipelined
batches; the coordinator finalizes it when its counters (:mod:`swarmgym.queue.counters`) say every
planned job is recorded.  ``enqueue`` with an existing campaign id does nothing (scheduled windows
rely on it).  ``resume`` re-sends every job without a ledger record and ``cancel`` marks the plan and
Redis and revokes the unstarted tasks (running jobs finish; their results are still recorded): both read
the plan and the records through a record source (:mod:`swarmgym.campaigns.records`), the
coordinator's for a fleet campaign, never the caller's files.
"""
from __future__ import annotations

import base64
import json
import logging
import time
from dataclasses import dataclass

from swarmgym.campaigns.plan import Campaign, campaign_path, load_campaign, new_campaign
from swarmgym.campaigns.records import Ask, RecordSource, checked
from swarmgym.core.errors import QueueError, UsageError
from swarmgym.ledger import Ledger
from swarmgym.models import JobSpec
from swarmgym.queue import counters, keys, liveness, plans, store
from swarmgym.queue.redis_util import for_config
from swarmgym.queue.routing import COORDINATOR_QUEUE, declare_queues, delivery_id, queue_for_job
from swarmgym.trust.secrets import mask_url

log = logging.getLogger(__name__)


@dataclass
class Sent:
    campaign_id: str
    jobs: int
    created: bool = True
    group_id: str | None = None


def job_signature(app, job: JobSpec, task_id: str):
    return app.signature(keys.RUN_JOB, args=[job.model_dump(mode="json")], queue=queue_for_job(job.model_dump()),
                         task_id=task_id)


def _fire_and_forget() -> None:
    """Senders here never wait for results: do not subscribe to each task's result channel (the
    Redis backend would, and then unsubscribe noisily at interpreter exit).  Pool processes of a
    worker run this way already."""
    from celery._state import _set_task_join_will_block

    _set_task_join_will_block(True)


def _argsrepr(job: JobSpec) -> str:
    """What Flower shows as a run_job's args: the job, briefly (Celery's own ``saferepr`` of the whole
    JobSpec costs more than sending the message)."""
    return repr([{"job_id": job.job_id, "spec": job.spec, "rep": job.rep, "variant": job.variant}])


def send_jobs(app, cfg, cid: str, jobs: list[JobSpec], *, fresh: bool, progress=None, batch: int = 500) -> int:
    """Send ``jobs`` as plain ``run_job`` tasks in pipelined batches; the coordinator finalizes ``cid``
    when its counters say every planned job is recorded (no chord: nothing kept in the result backend).

    Per-job states go to Redis first (one pipeline per ``batch``), then the messages, all through one
    connection and producer (one pipeline per ``batch``; queues declared once, not per message; no
    per-message retry: a failed batch is one error).  ``progress(sent, total)`` is called after each
    batch."""
    _fire_and_forget()
    r = for_config(cfg)
    if not jobs:
        declare_queues(app, [COORDINATOR_QUEUE])
        app.send_task(keys.FINALIZE_CAMPAIGN, args=[cid], queue=COORDINATOR_QUEUE, ignore_result=True)
        return 0
    tids = [(j.job_id, delivery_id(j.job_id, redelivery=not fresh)) for j in jobs]
    counters.plan_jobs(r, cid, tids, ttl=cfg.queue.result_expires, requeued=not fresh, batch=batch * 4)
    sent = 0
    queues = [queue_for_job({"pin_host": j.pin_host, "variant": j.variant}) for j in jobs]
    try:
        declare_queues(app, {COORDINATOR_QUEUE, *queues})
        with app.producer_or_acquire() as producer:
            for i in range(0, len(jobs), batch):
                with producer.batch(max_size=batch * 4):
                    for job, (_, tid), queue in zip(jobs[i:i + batch], tids[i:i + batch], queues[i:i + batch]):
                        app.send_task(keys.RUN_JOB, args=[job.model_dump(mode="json")], queue=queue, task_id=tid,
                                      producer=producer, ignore_result=True, retry=False, declare=[],
                                      argsrepr=_argsrepr(job), kwargsrepr="{}")
                sent += len(jobs[i:i + batch])
                if progress:
                    progress(sent, len(jobs))
    except Exception as e:  # kombu OperationalError etc.
        raise QueueError(f"broker {mask_url(cfg.queue.broker_url)}: cannot send campaign {cid} "
                         f"({sent}/{len(jobs)} sent: {e})") from None
    return sent


def enqueue(app, cfg, *, tier: str, variant: str, swarm: str = "sim", pin_host: str | None = None,
            campaign_id: str | None = None, suite: str | None = None, seed: int | None = None,
            progress=None, schedule: str | None = None) -> Sent:
    """Plan (the shared pipeline: :func:`swarmgym.campaigns.plan.new_campaign`) and send a campaign."""
    if campaign_id and campaign_path(cfg, campaign_id).is_file():
        return Sent(campaign_id, len(load_campaign(cfg, campaign_id).jobs), created=False)
    camp = new_campaign(cfg, tier, variant, swarm=swarm, mode="queue", suite=suite, pin_host=pin_host,
                        campaign_id=campaign_id, seed=seed, schedule=schedule)
    plans.publish(for_config(cfg), camp, cfg.queue.result_expires)  # the coordinator needs no shared home
    store.ensure_redis(for_config(cfg), camp)
    send_jobs(app, cfg, camp.campaign_id, camp.jobs, fresh=True, progress=progress)
    return Sent(camp.campaign_id, len(camp.jobs), True)


def recorded_job_ids(cfg, cid: str) -> set[str]:
    return set(Ledger(cfg.ledger_dir).job_ids(cid))


def recorded_overall(cfg, cid: str) -> dict[str, str]:
    """job_id -> overall of a campaign's records (to rebuild its counters after Redis lost them)."""
    return Ledger(cfg.ledger_dir).overall_by_job(cid)


def pending(cfg, camp: Campaign) -> list[JobSpec]:
    done = recorded_job_ids(cfg, camp.campaign_id)
    return [j for j in camp.jobs if j.job_id not in done]


def resume(app, cfg, cid: str, source: RecordSource) -> Sent:
    """Re-send every job of ``cid`` that has no record: the plan and the records are the source's (the
    coordinator's, for a fleet campaign), which also marks the plan not cancelled."""
    try:
        a = checked(source, Ask(kind="resume", campaign_ids=[cid]))
    except QueueError as e:  # nobody to ask: a campaign the broker does not know either is a usage error
        if plans.fetch(for_config(cfg), cid) is None:
            raise UsageError(f"campaign {cid!r}: no plan in Redis ({keys.plan(cid)}), and {e}") from None
        raise
    camp, done = a.plan, a.recorded
    assert camp is not None
    store.ensure_redis(for_config(cfg), camp, "running", recorded=done, ttl=cfg.queue.result_expires)
    todo = [j for j in camp.jobs if j.job_id not in done]
    send_jobs(app, cfg, cid, todo, fresh=False)
    return Sent(cid, len(todo), False)


@dataclass
class Cancelled:
    campaign_id: str
    revoked: int              # jobs without a record whose deliveries were revoked
    recorded_by: str          # whose plan now says cancelled: "coordinator" (or the embedded home), "broker"
    why: str = ""             # when only the broker knows: why the source could not be told


def cancel(app, cfg, cid: str, source: RecordSource) -> Cancelled:
    """Cancel ``cid``: hosts take none of its jobs from now on (its status in Redis), the source's plan
    says cancelled (so reconcile never sends them again), and every delivery of a job without a record is
    revoked.  Running jobs finish and are recorded.  When the source cannot be told (no coordinator
    alive), the broker's copy of the plan still stops every host, and the answer says so."""
    r = for_config(cfg)
    if r.exists(keys.campaign(cid)):
        r.hset(keys.campaign(cid), "status", "cancelled")
    try:
        a = checked(source, Ask(kind="cancel", campaign_ids=[cid]))
        camp, done, by, why = a.plan, set(a.recorded), "coordinator", ""
    except QueueError as e:  # the coordinator is gone: the broker's copy of the plan says it instead
        camp = plans.fetch(r, cid)
        if camp is None:
            raise
        camp.cancelled = True
        plans.publish(r, camp, cfg.queue.result_expires)
        store.ensure_redis(r, camp, "cancelled", opening=False)
        done = {j for j, s in store.job_states(r, cid).items() if s.get("state") == "done"}
        by, why = "broker", str(e)
    assert camp is not None
    states = store.job_states(r, cid)
    ids = []
    for j in camp.jobs:
        if j.job_id in done:
            continue
        ids.append(j.job_id)
        tid = states.get(j.job_id, {}).get("task_id")
        if tid and tid != j.job_id:
            ids.append(tid)
    if ids:
        app.control.revoke(ids)
    return Cancelled(cid, len([j for j in camp.jobs if j.job_id not in done]), by, why)


# --- what is in flight ---------------------------------------------------------------------

def _job_id_of_message(raw: str) -> str | None:
    try:
        msg = json.loads(raw)
        if isinstance(msg, list):  # unacked entries: [message, exchange, routing_key]
            msg = msg[0]
        if isinstance(msg, str):
            msg = json.loads(msg)
        if msg.get("headers", {}).get("task") != keys.RUN_JOB:
            return None
        body = msg.get("body")
        if msg.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body).decode()
        args = json.loads(body)[0]
        return args[0]["job_id"]
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None


def queued_job_ids(r) -> set[str]:
    """Job ids of run_job messages waiting in a variant/host queue or delivered but unacked."""
    out: set[str] = set()
    for pattern in ("variant.*", "host.*"):
        for key in r.scan_iter(match=pattern, count=500):
            if r.type(key) != "list":
                continue
            for raw in r.lrange(key, 0, -1):
                jid = _job_id_of_message(raw)
                if jid:
                    out.add(jid)
    if r.type("unacked") == "hash":
        for raw in r.hvals("unacked"):
            jid = _job_id_of_message(raw)
            if jid:
                out.add(jid)
    return out


def running_job_ids(r, job_ids: list[str]) -> set[str]:
    if not job_ids:
        return set()
    vals = r.mget([keys.lease(j) for j in job_ids])
    return {j for j, v in zip(job_ids, vals) if v}


RECORDING_GRACE = 600.0  # a result sent to the coordinator but not recorded yet (ledger writes retrying)


def active_job_ids(app, timeout: float = 2.0) -> set[str]:
    """Jobs a host says it is running now (a broadcast): what Redis cannot say after it lost its keys."""
    try:
        active = app.control.inspect(timeout=timeout).active() or {}
    except Exception as e:  # the broker is still coming back: the leases will say it instead
        log.warning("inspect active: %s", e)
        return set()
    out = set()
    for tasks in active.values():
        for t in tasks or []:
            if t.get("name") != keys.RUN_JOB:
                continue
            args = t.get("args") or []
            job = args[0] if isinstance(args, (list, tuple)) and args and isinstance(args[0], dict) else {}
            out.add(str(job.get("job_id") or str(t.get("id") or "").split("~")[0]))
    return out


def lost_jobs(cfg, camp: Campaign, grace: float, now: float | None = None,
              busy: set[str] | frozenset[str] = frozenset()) -> list[JobSpec]:
    """Jobs with no ledger record, not queued, not running (nor in ``busy``), in a campaign older than
    ``grace`` seconds."""
    now = now or time.time()
    if camp.cancelled or now - camp.created < grace:
        return []
    todo = pending(cfg, camp)
    if not todo:
        return []
    r = for_config(cfg)

    busy = (set(busy) | queued_job_ids(r) | running_job_ids(r, [j.job_id for j in todo])
            | set(liveness.running(r)))
    states = store.job_states(r, camp.campaign_id)
    recent = {j for j, s in states.items() if (s.get("state") == "queued" and now - s.get("ts", 0) < grace)
              or (s.get("state") == "recording" and now - s.get("ts", 0) < max(grace, RECORDING_GRACE))}
    return [j for j in todo if j.job_id not in busy and j.job_id not in recent]


def requeue(app, cfg, camp: Campaign, jobs: list[JobSpec]) -> None:
    """Send lost jobs again (plain tasks; the coordinator finalizes when the last one is recorded)."""
    store.ensure_redis(for_config(cfg), camp, recorded=recorded_overall(cfg, camp.campaign_id),
                       ttl=cfg.queue.result_expires)
    send_jobs(app, cfg, camp.campaign_id, jobs, fresh=False)
