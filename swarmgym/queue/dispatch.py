"""Enqueue, resume and cancel campaigns; find jobs that are queued or running.

A campaign goes out as one chord: ``run_job`` per JobSpec on its variant/host queue, then
``finalize_campaign(cid)`` on the coordinator queue.  ``enqueue`` with an existing campaign id
does nothing (scheduled windows rely on it).  ``resume`` re-sends every job without a ledger
record in a new chord.  ``cancel`` marks the plan and Redis and revokes the unstarted tasks
(running jobs finish; their results are still recorded).
"""
from __future__ import annotations

import base64
import json
import time
import uuid
from dataclasses import dataclass

from celery import chord

from swarmgym.campaign import Campaign, campaign_path, load_campaign, new_campaign, save_campaign
from swarmgym.errors import QueueError
from swarmgym.queue.app import declare_queues
from swarmgym.models import JobSpec
from swarmgym.queue import store
from swarmgym.queue.lease import lease_key
from swarmgym.queue.redis_util import for_config
from swarmgym.queue.routing import COORDINATOR_QUEUE, RUN_JOB, queue_for_job


@dataclass
class Sent:
    campaign_id: str
    jobs: int
    created: bool = True
    group_id: str | None = None


def job_signature(app, job: JobSpec, task_id: str):
    return app.signature(RUN_JOB, args=[job.model_dump(mode="json")], queue=queue_for_job(job.model_dump()),
                         task_id=task_id)


def _fire_and_forget() -> None:
    """Senders here never wait for results: do not subscribe to each task's result channel (the
    Redis backend would, and then unsubscribe noisily at interpreter exit).  Pool processes of a
    worker run this way already."""
    from celery._state import _set_task_join_will_block

    _set_task_join_will_block(True)


def send_chord(app, cfg, cid: str, jobs: list[JobSpec], *, fresh: bool) -> str | None:
    """Send ``jobs`` as a chord whose body finalizes ``cid``; returns the chord's result id."""
    _fire_and_forget()
    r = for_config(cfg)
    body = app.signature("swarmgym.finalize_campaign", args=[cid], immutable=True, queue=COORDINATOR_QUEUE)
    if not jobs:
        declare_queues(app, [COORDINATOR_QUEUE])
        body.apply_async()
        return None
    header = []
    for job in jobs:
        tid = job.job_id if fresh else f"{job.job_id}~{uuid.uuid4().hex[:6]}"
        store.mark_job(r, cid, job.job_id, "queued", task_id=tid)
        header.append(job_signature(app, job, tid))
    r.hset(store.hash_key(cid), "finalize_pending", 0)
    try:
        declare_queues(app, {COORDINATOR_QUEUE, *(queue_for_job(j.model_dump()) for j in jobs)})
        res = chord(header, app=app)(body)
    except Exception as e:  # kombu OperationalError etc.
        raise QueueError(f"broker {mask(cfg.queue.broker_url)}: cannot send campaign {cid} ({e})") from None
    rid = res.id
    _drop_result_subscriptions(app)
    return rid


def _drop_result_subscriptions(app) -> None:
    """Celery subscribes to the header tasks' result channels when a group is sent; we never wait
    on them, and leaving the subscription open makes the process print a traceback at exit."""
    rc = getattr(app.backend, "result_consumer", None)
    if rc is None or getattr(rc, "_pubsub", None) is None:
        return
    try:
        rc.stop()
    except Exception:
        pass
    rc._pubsub = None


def mask(url: str) -> str:
    from swarmgym.queue.app import mask_url

    return mask_url(url)


def enqueue(app, cfg, *, tier: str, variant: str, swarm: str = "sim", pin_host: str | None = None,
            campaign_id: str | None = None, suite: str | None = None, seed: int | None = None) -> Sent:
    """Plan (the shared pipeline: :func:`swarmgym.campaign.new_campaign`) and send a campaign."""
    if campaign_id and campaign_path(cfg, campaign_id).is_file():
        return Sent(campaign_id, len(load_campaign(cfg, campaign_id).jobs), created=False)
    camp = new_campaign(cfg, tier, variant, swarm=swarm, mode="queue", suite=suite, pin_host=pin_host,
                        campaign_id=campaign_id, seed=seed)
    store.ensure_redis(for_config(cfg), camp)
    gid = send_chord(app, cfg, camp.campaign_id, camp.jobs, fresh=True)
    return Sent(camp.campaign_id, len(camp.jobs), True, gid)


def recorded_job_ids(cfg, cid: str) -> set[str]:
    from swarmgym.ledger import Ledger

    return set(Ledger(cfg.ledger_dir).job_ids(cid))


def pending(cfg, camp: Campaign) -> list[JobSpec]:
    done = recorded_job_ids(cfg, camp.campaign_id)
    return [j for j in camp.jobs if j.job_id not in done]


def resume(app, cfg, cid: str) -> Sent:
    camp = load_campaign(cfg, cid)
    if camp.cancelled:
        camp.cancelled = False
        save_campaign(cfg, camp)
    store.ensure_redis(for_config(cfg), camp, "running")
    todo = pending(cfg, camp)
    gid = send_chord(app, cfg, cid, todo, fresh=False)
    return Sent(cid, len(todo), False, gid)


def cancel(app, cfg, cid: str) -> int:
    r = for_config(cfg)
    camp = store.set_cancelled(cfg, r, cid)
    done = recorded_job_ids(cfg, cid)
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
    return len([j for j in camp.jobs if j.job_id not in done])


# --- what is in flight ---------------------------------------------------------------------

def _job_id_of_message(raw: str) -> str | None:
    try:
        msg = json.loads(raw)
        if isinstance(msg, list):  # unacked entries: [message, exchange, routing_key]
            msg = msg[0]
        if isinstance(msg, str):
            msg = json.loads(msg)
        if msg.get("headers", {}).get("task") != RUN_JOB:
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
    vals = r.mget([lease_key(j) for j in job_ids])
    return {j for j, v in zip(job_ids, vals) if v}


def lost_jobs(cfg, camp: Campaign, grace: float, now: float | None = None) -> list[JobSpec]:
    """Jobs with no ledger record, not queued, not running, in a campaign older than ``grace`` seconds."""
    now = now or time.time()
    if camp.cancelled or now - camp.created < grace:
        return []
    todo = pending(cfg, camp)
    if not todo:
        return []
    r = for_config(cfg)
    busy = queued_job_ids(r) | running_job_ids(r, [j.job_id for j in todo])
    states = store.job_states(r, camp.campaign_id)
    recent = {j for j, s in states.items() if s.get("state") == "queued" and now - s.get("ts", 0) < grace}
    return [j for j in todo if j.job_id not in busy and j.job_id not in recent]


def requeue(app, cfg, camp: Campaign, jobs: list[JobSpec]) -> None:
    """Send lost jobs again (plain tasks; the coordinator finalizes when the last one is recorded)."""
    _fire_and_forget()
    r = for_config(cfg)
    declare_queues(app, {COORDINATOR_QUEUE, *(queue_for_job(j.model_dump()) for j in jobs)})
    for job in jobs:
        tid = f"{job.job_id}~{uuid.uuid4().hex[:6]}"
        store.mark_job(r, camp.campaign_id, job.job_id, "queued", task_id=tid, requeued=True)
        job_signature(app, job, tid).apply_async()
    r.hset(store.hash_key(camp.campaign_id), "finalize_pending", 1)
