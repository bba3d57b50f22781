"""A host's one door into the queue: everything ``workers/`` asks of it, and nothing of the coordinator.

    life = claim.announce(cfg, host, info)       # the worker is up: register, beat from the main process
    got = claim.take(cfg, spec, host, task_id)   # a Claim, or a marker saying why the job is not run here
    ... run the job ...
    got.release()                                # the lease goes, its renewals (the heartbeat) stop
    got.send(app, result)                        # the run folder packed, the result signed and sent
    got.put_back()                               # or, in a warm shutdown: the job goes back to its queue
    claim.withdraw(life)                         # a clean stop

A claim is the job's lease (:class:`~swarmgym.queue.lease.JobLease`, renewed by a thread; each renewal
beats for the host) plus the job's running entry and its state in the campaign's counters.  What the
coordinator checks on the other side — the signature, the plan, who leased the job — is
:mod:`swarmgym.queue.accept`; a host never needs more than this module.
"""
from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from typing import Any

import redis

from swarmgym.config import Config
from swarmgym.core.errors import SwarmgymError
from swarmgym.models import JobResult, JobSpec
from swarmgym.queue import accept, bundle, counters, keys, liveness, store
from swarmgym.queue.lease import JobLease, mark_leased
from swarmgym.queue.redis_util import for_config
from swarmgym.queue.routing import COORDINATOR_QUEUE, declare_queues
from swarmgym.trust import hostkeys, signing

log = logging.getLogger(__name__)
SEND_TRIES = 3
DRAINING_TTL = 3600


# --- the host's life ---------------------------------------------------------------------------

@dataclass
class Life:
    """One start of a host worker: registered and beating until :func:`withdraw`."""

    cfg: Config
    host: str
    life: str
    beat: liveness.HostBeat | None = None
    info: dict[str, Any] = field(default_factory=dict)


def begin_life() -> str:
    """A new life for this worker, before its pool starts (every pool process belongs to it)."""
    return liveness.new_life()


def announce(cfg: Config, host: str, info: dict[str, Any], *, beat: bool = True) -> Life:
    """Register ``host`` with this process's life and beat for it every ``dead_host_secs / 4`` (on a Redis
    client of the beat's own).  The coordinator re-sends at once whatever an earlier life left running."""
    life = liveness.this_life()
    info = {**info, "pid": os.getpid(), "life": life}
    r = liveness.private_client(cfg.queue.broker_url)
    try:
        liveness.register_host(r, host, info)
    except redis.RedisError as e:
        log.warning("%s not registered: %s", host, e)
    hb = liveness.HostBeat(cfg.queue.broker_url, host, cfg.queue.dead_host_secs / 4, info).start() if beat else None
    return Life(cfg, host, life, hb, info)


def withdraw(life: Life) -> None:
    """A clean stop is not a death: the host leaves the heartbeat table, known as stopped since now."""
    if life.beat is not None:
        life.beat.stop()
    try:
        liveness.withdraw(liveness.private_client(life.cfg.queue.broker_url), life.host, life.life)
    except redis.RedisError:
        pass


def drain(cfg: Config, host: str, main_pid: int) -> None:
    """This worker's main process is in warm shutdown: a job ending now goes back to its queue."""
    liveness.private_client(cfg.queue.broker_url).set(keys.draining(host, main_pid), "1", ex=DRAINING_TTL)


def not_consuming(cfg: Config, host: str, queue: str, why: str) -> None:
    """Remember (for ``workers``) that ``host`` stopped consuming ``queue`` and why."""
    liveness.note_not_consuming(for_config(cfg), host, queue, why)


# --- one job -----------------------------------------------------------------------------------

@dataclass
class Claim:
    """``host``'s claim on ``spec`` for delivery ``task_id`` (``lease`` None: Redis was unreachable, the
    job runs without one and the ledger dedupes)."""

    cfg: Config
    spec: JobSpec
    host: str
    task_id: str
    lease: JobLease | None = None
    since: float | None = None  # when it started here, on the broker's clock (set when first published)

    @property
    def r(self) -> redis.Redis:
        return for_config(self.cfg)

    def _publish(self) -> None:
        """The job runs here: its durable lease mark, its state in the counters, its running entry."""
        cid, jid = self.spec.campaign_id, self.spec.job_id
        mark_leased(self.r, cid, jid, self.host, self.cfg.queue.result_expires)  # outlives the lease
        store.mark_job(self.r, cid, jid, "running", host=self.host, task_id=self.task_id)
        if self.since is None:
            self.since = liveness.broker_now(self.r)
        liveness.started(self.r, self.spec.model_dump(mode="json"), self.host, self.task_id, since=self.since)

    def release(self) -> None:
        if self.lease is not None:
            self.lease.release()

    def draining(self) -> bool:
        """Is this worker's main process in warm shutdown (:func:`drain`)?"""
        try:
            return bool(self.r.exists(keys.draining(self.host, os.getppid())))
        except redis.RedisError:
            return False

    def put_back(self) -> None:
        """The job was not finished here: queued again (the caller rejects the delivery with requeue)."""
        try:
            store.mark_job(self.r, self.spec.campaign_id, self.spec.job_id, "queued", requeued_by=self.host)
            liveness.finished(self.r, self.spec.job_id, self.task_id)
        except redis.RedisError:
            pass

    def send(self, app: Any, res: JobResult) -> JobResult:
        """Pack the run folder, sign and send the result to the coordinator (tried :data:`SEND_TRIES`
        times); returns the result as sent (its ``artefacts`` says where the run folder is)."""
        try:
            declare_queues(app, [COORDINATOR_QUEUE])  # bindings survive a Redis flush mid-campaign
        except Exception as e:
            log.warning("coordinator queue not declared: %s", e)
        res, payload = pack(self.cfg, res)
        try:  # on its way to the coordinator: not lost while its ledger write is retried
            store.mark_job(self.r, self.spec.campaign_id, self.spec.job_id, "recording", host=self.host,
                           task_id=self.task_id)
        except redis.RedisError:
            pass
        for attempt in range(SEND_TRIES):
            try:
                send_result(app, self.cfg, res, payload)
                break
            except Exception as e:
                log.warning("record_job for %s not sent (try %d): %s", self.spec.job_id, attempt + 1, e)
                time.sleep(1 + attempt)
        try:
            liveness.finished(self.r, self.spec.job_id, self.task_id)
        except redis.RedisError:
            pass
        return res


def take(cfg: Config, spec: JobSpec, host: str, task_id: str) -> Claim | dict:
    """Claim ``spec`` for this host: a :class:`Claim`, or the marker the task returns instead of running
    it (``{refused}``: env outside the allowlist; ``{cancelled}``; ``{duplicate, reason|held_by}``: the
    campaign is finalized, this delivery was re-sent while the host was silent, the job is recorded, or
    another host holds its lease)."""
    r = for_config(cfg)
    if (refused := accept.check_run(cfg, r, spec, host)) is not None:
        return refused
    marker = {"job_id": spec.job_id, "campaign_id": spec.campaign_id, "host": host}
    got = Claim(cfg, spec, host, task_id)
    try:
        status = store.redis_status(r, spec.campaign_id).get("status")
        if status == "cancelled":
            return {**marker, "cancelled": True}
        if status == "finalized":
            return {**marker, "duplicate": True, "reason": "campaign finalized"}
        if r.hexists(keys.STALE, task_id):  # taken from this host while it was silent
            return {**marker, "duplicate": True, "reason": "stale delivery (re-sent while this host was silent)"}
        if counters.job_state(r, spec.campaign_id, spec.job_id).get("state") == "done":
            return {**marker, "duplicate": True, "reason": "already recorded"}
        lease = JobLease(r, spec.job_id, host, cfg.queue.lease_ttl, beat_every=cfg.queue.dead_host_secs / 4,
                         task_id=task_id, on_reset=got._publish)
        if not lease.acquire():
            log.warning("run_job %s: duplicate delivery, lease held by %s", spec.job_id, lease.held_by)
            return {**marker, "duplicate": True, "held_by": lease.held_by}
        got.lease = lease
        got._publish()
    except redis.RedisError as e:  # no lease without Redis: run anyway, the ledger dedupes
        log.warning("run_job %s: lease unavailable (%s); running without it", spec.job_id, e)
    return got


# --- the result --------------------------------------------------------------------------------

def pack(cfg: Config, res: JobResult) -> tuple[JobResult, str | None]:
    """The job's run folder as a payload to ride with its record (None: nothing to ship), and the
    result saying where the folder will be: ``runs/<session>`` on the coordinator, or
    ``<host>:<path>`` when it is over ``queue.artefact_cap_mb`` and stays here."""
    folder = cfg.runs_dir / res.session_id
    try:
        payload, where = bundle.ship(folder, cfg.queue.artefact_cap_mb)
    except OSError as e:
        log.warning("artefacts of %s not packed: %s", res.session_id, e)
        payload, where = None, str(folder.resolve())
    if payload is not None:
        return res.model_copy(update={"artefacts": where}), payload
    if where:  # too big to ship: it stays on this host, and the record says where
        return res.model_copy(update={"artefacts": f"{res.host}:{where}"}), None
    return res, None


def send_result(app: Any, cfg: Config, res: JobResult, payload: str | None = None) -> None:
    """``record_job`` for ``res`` (and its run-folder ``payload``), signed with this host's key: the
    coordinator records nothing unsigned (:mod:`swarmgym.trust.signing`).  Without a readable key the
    result still goes, unsigned, so the coordinator keeps it among its refusals with the reason.  No
    result is kept, the body is zlib-compressed (a JobResult shrinks ~4x: it waits in Redis until the
    coordinator takes it), and Flower shows the job id, not a repr of the whole payload."""
    out = signing.wire_safe(res.model_dump(mode="json"))
    try:
        sig = signing.sign(hostkeys.host_key(cfg), res.host, out, payload)
    except SwarmgymError as e:
        log.error("record_job for %s sent unsigned (it will be refused): %s", res.job.job_id, e)
        sig = None
    app.send_task(keys.RECORD_JOB, args=[out, payload, sig], queue=COORDINATOR_QUEUE, ignore_result=True,
                  compression="zlib", argsrepr=repr([res.job.job_id]), kwargsrepr="{}")
