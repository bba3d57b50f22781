"""Queue names and the router: a job goes to its pinned host's queue, else to its variant's queue.

Queues: ``variant.<v>`` (any host of that build), ``host.<name>`` (one machine), ``coordinator``
(the only ledger writer) and ``coordinator.ask`` (the CLI's questions to it, which never wait behind
a backlog of results).  A host worker named ``<variant>@<host>`` consumes
``variant.<v>,host.<host>``.  A job's first delivery has the job id as its task id, each later one
:func:`delivery_id` with ``redelivery=True`` (the job id, ``~`` and six random hex digits).
"""
from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Iterable

from kombu import Exchange, Queue

from swarmgym.core.names import check_name
from swarmgym.queue import keys

if TYPE_CHECKING:
    from celery import Celery

COORDINATOR_QUEUE = "coordinator"
ASK_QUEUE = "coordinator.ask"


def delivery_id(job_id: str, *, redelivery: bool = False) -> str:
    """The Celery task id of a delivery of ``job_id``: the job id itself the first time, a fresh
    ``<job_id>~<hex6>`` for a re-send (resume, reconcile, a dead host's job)."""
    return f"{job_id}~{uuid.uuid4().hex[:6]}" if redelivery else job_id


def variant_queue(variant: str) -> str:
    return f"variant.{check_name('variant', variant)}"


def host_queue(host: str) -> str:
    return f"host.{check_name('host', host)}"


def worker_name(variant: str, host: str) -> str:
    return f"{check_name('variant', variant)}@{check_name('host', host)}"


def worker_queues(variant: str, host: str) -> list[str]:
    return [variant_queue(variant), host_queue(host)]


def queue_for_job(job: dict) -> str:
    """The queue of one JobSpec (as a dict): pinned host first, then variant."""
    if job.get("pin_host"):
        return host_queue(job["pin_host"])
    return variant_queue(job["variant"])


def route_task(name, args, kwargs, options, task=None, **kw):
    """Celery router (``task_routes``): explicit ``queue=`` wins; jobs by variant/host; the rest to the coordinator."""
    if options.get("queue"):
        return None
    if name == keys.RUN_JOB:
        job = (args or [None])[0] if args else (kwargs or {}).get("job")
        if isinstance(job, dict):
            return {"queue": queue_for_job(job)}
        if isinstance(job, str):
            try:
                return {"queue": queue_for_job(json.loads(job))}
            except (ValueError, KeyError):
                return None
        return None
    if name == keys.ASK:
        return {"queue": ASK_QUEUE}
    if name in keys.COORDINATOR_TASKS:
        return {"queue": COORDINATOR_QUEUE}
    return None


def declare_queues(app: Celery, names: Iterable[str]) -> None:
    """Declare queues (and their bindings) now, bypassing kombu's per-process declare cache.

    After a Redis flush the exchange bindings are gone; a long-lived process would otherwise
    publish into the void because it remembers having declared them already.
    """
    with app.connection_for_write() as conn:
        ch = conn.default_channel
        for n in names:
            Queue(n, Exchange(n, type="direct"), routing_key=n)(ch).declare()
