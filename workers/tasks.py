"""The host-side Celery task: ``swarmgym.run_job``, a thin shell over :func:`swarmgym.campaigns.job.run_job`.

It takes a JobSpec (JSON), holds a job lease while running (a second delivery of the same job to
another host returns a ``duplicate`` marker), runs the job under the psutil sampler with an orphan
guard watching this process, never raises (a failure becomes a failed JobResult with ErrorInfo),
ships the run folder, sends ``record_job`` to the coordinator signed with this host's key
(:mod:`swarmgym.trust.signing`) and returns the result.

Time limits: the swarm adapter's own timeout comes first (exit 124); Celery's soft limit
(``cfg.queue.soft_time_limit``) is the backstop: the swarm's process groups are killed and the job
is recorded as ``timeout``.  On warm shutdown the worker kills the running swarm and the job is
requeued for another host, not recorded.
"""
from __future__ import annotations

import logging
import os
import subprocess
import time

import psutil
import redis
from celery import Task, shared_task
from celery.exceptions import Reject, SoftTimeLimitExceeded, TimeLimitExceeded
from celery.signals import worker_shutting_down

from swarmgym.core.errors import JobNotRun, SwarmgymError
from swarmgym.core.hosts import host_of
from swarmgym.core.states import JobStatus
from swarmgym.isolation import guard as swarm_guard
from swarmgym.isolation.proctree import kill_with_group
from swarmgym.models import ErrorInfo, JobResult, JobSpec
from swarmgym.queue import accept, deadhosts, keys, liveness, store
from swarmgym.queue.appconfig import app_config
from swarmgym.queue.lease import JobLease, mark_leased
from swarmgym.queue.lifecycle import local_suite_hash
from swarmgym.queue.redis_util import for_config
from swarmgym.queue.routing import COORDINATOR_QUEUE, declare_queues
from swarmgym.trust import hostkeys, signing
from swarmgym.workers import artefacts
from swarmgym.workers.sampler import HostSampler, summarize

log = logging.getLogger(__name__)


def start_guard(pid: int) -> subprocess.Popen | None:
    guard = swarm_guard.start(pid)
    if guard is None:
        log.warning("orphan guard not started")
    return guard


def sweep_descendants(root_pid: int, exclude: set[int]) -> int:
    """Kill what the job left running below ``root_pid``: each foreign process group, then the process."""
    try:
        kids = psutil.Process(root_pid).children(recursive=True)
    except psutil.Error:
        return 0
    return sum(kill_with_group(p) for p in kids if p.pid not in exclude)


def failed_result(job: JobSpec, host: str, status: JobStatus, err: ErrorInfo, started: float) -> JobResult:
    now = time.time()
    return JobResult(job=job, session_id=f"s-{job.job_id}", host=host, status=status, error=err,
                     started=started, finished=now, wall_secs=round(now - started, 3),
                     exit_code=124 if status == "timeout" else None)


class _Sampling:
    """Factory handed to run_job as ``sampler=``; keeps the last sampler so we can summarize it."""

    def __init__(self, cfg, exclude: set[int]):
        self.cfg, self.exclude = cfg, exclude
        self.last: HostSampler | None = None

    def __call__(self) -> HostSampler:
        self.last = HostSampler(self.cfg.queue.sample_hz, root_pid=os.getpid(), exclude=self.exclude)
        return self.last


def execute(job: JobSpec, cfg, host: str, guard_pid: int | None, soft_limit: float | None,
            task_started: float | None = None) -> JobResult:
    """Run one job in this process; never raises."""
    started = time.time()
    task_started = task_started or started
    sampling = _Sampling(cfg, {guard_pid} if guard_pid else set())
    try:
        from swarmgym.campaigns.job import run_job

        res = run_job(job, cfg, host=host, sampler=sampling)
    except SoftTimeLimitExceeded as e:
        log.warning("run_job %s: killed at the soft time limit (%ss)", job.job_id, soft_limit)
        res = failed_result(job, host, JobStatus.TIMEOUT, ErrorInfo(type="SoftTimeLimitExceeded",
                            message=f"killed at the soft time limit ({soft_limit}s)") if soft_limit else ErrorInfo.of(e),
                            started)
    except Exception as e:  # run_job should not raise; if it does, the error is data
        log.exception("run_job %s crashed", job.job_id)
        res = failed_result(job, host, JobStatus.ERROR, ErrorInfo.of(e), started)
    hit = (res.error is not None and res.error.type == "SoftTimeLimitExceeded") or (
        soft_limit is not None and time.time() - task_started >= soft_limit)
    if hit and res.status != JobStatus.TIMEOUT:
        res = res.model_copy(update={"status": JobStatus.TIMEOUT, "exit_code": 124, "error": ErrorInfo(
            type="SoftTimeLimitExceeded", message=f"killed at the soft time limit ({soft_limit}s)")})
    if not res.host_load and sampling.last is not None:
        res = res.model_copy(update={"host_load": summarize(sampling.last.samples)})
    return res


def to_coordinator(app, name: str, args: list, label: str) -> None:
    """Send a task to the coordinator: no result kept, the body zlib-compressed (a JobResult shrinks
    ~4x: it waits in Redis until the coordinator takes it), and Flower shows ``label``, not a repr
    of the whole payload."""
    app.send_task(name, args=args, queue=COORDINATOR_QUEUE, ignore_result=True, compression="zlib",
                  argsrepr=repr([label]), kwargsrepr="{}")


def send_record(app, cfg, res: JobResult, bundle: str | None = None) -> None:
    """``record_job`` for ``res`` (and its run-folder ``bundle``), signed with this host's key: the
    coordinator records nothing unsigned (:mod:`swarmgym.trust.signing`).  Without a readable key the
    result still goes, unsigned, so the coordinator keeps it among its refusals with the reason."""
    out = signing.wire_safe(res.model_dump(mode="json"))
    try:
        sig = signing.sign(hostkeys.host_key(cfg), res.host, out, bundle)
    except SwarmgymError as e:
        log.error("record_job for %s sent unsigned (it will be refused): %s", res.job.job_id, e)
        sig = None
    to_coordinator(app, keys.RECORD_JOB, [out, bundle, sig], res.job.job_id)


def pack_artefacts(cfg, res: JobResult) -> tuple[JobResult, str | None]:
    """The job's run folder as a payload to ride with its record (None: nothing to ship), and the
    result saying where the folder will be: ``runs/<session>`` on the coordinator, or
    ``<host>:<path>`` when it is over ``queue.artefact_cap_mb`` and stays here."""
    folder = cfg.runs_dir / res.session_id
    try:
        payload, where = artefacts.ship(folder, cfg.queue.artefact_cap_mb)
    except OSError as e:
        log.warning("artefacts of %s not packed: %s", res.session_id, e)
        payload, where = None, str(folder.resolve())
    if payload is not None:
        return res.model_copy(update={"artefacts": where}), payload
    if where:  # too big to ship: it stays on this host, and the record says where
        return res.model_copy(update={"artefacts": f"{res.host}:{where}"}), None
    return res, None


def _soft_limit(task) -> float | None:
    lim = task.request.timelimit[1] if task.request.timelimit else None
    return float(lim or task.app.conf.task_soft_time_limit or 0) or None


class RunJobTask(Task):
    """``on_failure`` only runs when the body could not return: the hard time limit killed the pool
    process (Celery calls it in the worker's main process).  The job is then recorded as a
    timeout, so the campaign still completes and reconcile does not re-send a job that hangs."""

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        if isinstance(exc, JobNotRun):  # its error result is already on its way to the ledger
            return
        try:
            job = JobSpec.model_validate(args[0] if args else kwargs.get("job"))
            host = host_of(getattr(self.request, "hostname", None))
            status = JobStatus.TIMEOUT if isinstance(exc, TimeLimitExceeded) else JobStatus.ERROR
            err = ErrorInfo.of(exc).model_copy(update={"message": f"{exc} (worker {host})"[:2000]})
            res = failed_result(job, host, status, err, time.time())
            send_record(self.app, app_config(self.app), res)
        except Exception:  # reconcile will find the job lost
            log.exception("run_job %s failed and could not be recorded", task_id)


@shared_task(name=keys.RUN_JOB, bind=True, base=RunJobTask, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_job_task(self, job: dict) -> dict:
    task_started = time.time()
    cfg = app_config(self.app)
    host = host_of(self.request.hostname)
    try:
        spec = JobSpec.model_validate(job)
    except Exception as e:
        log.error("run_job: invalid JobSpec: %s", e)
        return {"invalid": True, "host": host, "error": ErrorInfo.of(e).model_dump()}
    r = for_config(cfg)
    if (refused := accept.check_run(cfg, r, spec, host)) is not None:
        return refused
    marker = {"job_id": spec.job_id, "campaign_id": spec.campaign_id, "host": host}
    lease = JobLease(r, spec.job_id, host, cfg.queue.lease_ttl, beat_every=cfg.queue.dead_host_secs / 4)
    try:
        status = store.redis_status(r, spec.campaign_id).get("status")
        if status == "cancelled":
            return {**marker, "cancelled": True}
        if status == "finalized":
            return {**marker, "duplicate": True, "reason": "campaign finalized"}
        if deadhosts.is_stale(r, self.request.id):  # taken from this host while it was silent
            return {**marker, "duplicate": True, "reason": "stale delivery (re-sent while this host was silent)"}
        refuse_other_suite(self, r, cfg, spec, host)
        if deadhosts.job_done(r, spec.campaign_id, spec.job_id):
            return {**marker, "duplicate": True, "reason": "already recorded"}
        if not lease.acquire():
            log.warning("run_job %s: duplicate delivery, lease held by %s", spec.job_id, lease.held_by)
            return {**marker, "duplicate": True, "held_by": lease.held_by}
        mark_leased(r, spec.campaign_id, spec.job_id, host, cfg.queue.result_expires)  # outlives the lease
        store.mark_job(r, spec.campaign_id, spec.job_id, "running", host=host, task_id=self.request.id)
        liveness.started(r, spec.model_dump(mode="json"), host, self.request.id)
    except redis.RedisError as e:  # no lease without Redis: run anyway, the ledger dedupes
        log.warning("run_job %s: lease unavailable (%s); running without it", spec.job_id, e)
    guard = start_guard(os.getpid())
    guard_pid = guard.pid if guard else None
    try:
        res = execute(spec, cfg, host, guard_pid, _soft_limit(self), task_started)
    finally:
        sweep_descendants(os.getpid(), {guard_pid} if guard_pid else set())
        if guard:
            guard.terminate()
            guard.wait(timeout=5)
        lease.release()
    try:
        if r.exists(keys.draining(host, os.getppid())):
            store.mark_job(r, spec.campaign_id, spec.job_id, "queued", requeued_by=host)
            liveness.finished(r, spec.job_id, self.request.id)
            raise Reject(f"worker {self.request.hostname} shutting down: job requeued", requeue=True)
    except redis.RedisError:
        pass
    try:
        declare_queues(self.app, [COORDINATOR_QUEUE])  # bindings survive a Redis flush mid-campaign
    except Exception as e:
        log.warning("coordinator queue not declared: %s", e)
    res, bundle = pack_artefacts(cfg, res)
    try:  # the result is on its way to the coordinator: not lost while its ledger write is retried
        store.mark_job(r, spec.campaign_id, spec.job_id, "recording", host=host, task_id=self.request.id)
    except redis.RedisError:
        pass
    for attempt in range(3):
        try:
            send_record(self.app, cfg, res, bundle)
            break
        except Exception as e:
            log.warning("record_job for %s not sent (try %d): %s", spec.job_id, attempt + 1, e)
            time.sleep(1 + attempt)
    try:
        liveness.finished(r, spec.job_id, self.request.id)
    except redis.RedisError:
        pass
    shown = task_result(res)
    if res.status in (JobStatus.ERROR, JobStatus.INFRA):  # could not run: FAILURE in Flower, with the reason
        err = res.error
        raise JobNotRun(f"{spec.job_id} on {host}: " + (f"{err.type}: {err.message}" if err else "no result")[:500])
    return shown


def refuse_other_suite(task, r, cfg, spec: JobSpec, host: str) -> None:
    """A host whose suite hashes differently takes none of that suite's jobs from a shared queue: it puts
    the job back for another host and stops consuming the queue (``workers`` says why).  A job pinned to
    this host runs, and its error says which hashes differ."""
    have = local_suite_hash(cfg, spec.suite)
    queue = (task.request.delivery_info or {}).get("routing_key") or ""
    if have == spec.suite_hash or not queue.startswith("variant."):
        return
    why = (f"suite {spec.suite} hashes to {have} here, jobs expect {spec.suite_hash}" if have
           else f"no suite {spec.suite} here")
    log.error("run_job %s: %s: not consuming %s any more; job put back for another host", spec.job_id, why, queue)
    liveness.note_not_consuming(r, host, queue, why)
    task.app.control.cancel_consumer(queue, destination=[task.request.hostname], reply=False)
    raise Reject(f"{why}: put back for another host", requeue=True)


def task_result(res: JobResult) -> dict:
    """What the task returns (Flower's result column): the verdict, not the whole JobResult (that
    goes to the coordinator in ``record_job``)."""
    v = res.verdict
    return {"job_id": res.job.job_id, "host": res.host, "status": res.status,
            "overall": v.overall if v else None, "functional": v.functional if v else None,
            "dimensions": {k: d.status for k, d in v.dimensions.items()} if v else {},
            "wall_secs": res.wall_secs, "error": f"{res.error.type}: {res.error.message}"[:300] if res.error else None}


@worker_shutting_down.connect
def _kill_running_swarms(sender=None, sig=None, how=None, exitcode=None, **kw):
    """Warm shutdown: flag this worker as draining and kill the swarms its pool children run."""
    try:
        from celery import current_app

        cfg = app_config(current_app)
        me = psutil.Process()
        host = host_of(str(sender) if sender else None)
        for_config(cfg).set(keys.draining(host, me.pid), "1", ex=3600)
        pool = {p.pid for p in me.children()}
        for child in pool:
            guards = {p.pid for p in psutil.Process(child).children() if "swarmgym.isolation.guard" in " ".join(p.cmdline())}
            sweep_descendants(child, guards)
    except Exception as e:
        log.warning("shutdown: could not stop running swarms: %s", e)
