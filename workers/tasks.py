"""The host-side Celery task: ``swarmgym.run_job``, a thin shell over :func:`swarmgym.campaigns.job.run_job`.

It takes a JobSpec (JSON), claims it through :mod:`swarmgym.queue.claim` (the host's one door into the
queue: a second delivery of the same job returns a ``duplicate`` marker), runs the job under the psutil
sampler with an orphan guard watching this process, never raises (a failure becomes a failed JobResult
with ErrorInfo), and sends the result with its run folder, signed, to the coordinator.

Time limits: the swarm adapter's own timeout comes first (exit 124); Celery's soft limit
(``cfg.queue.soft_time_limit``) is the backstop: the swarm's process groups are killed and the job
is recorded as ``timeout``.  On warm shutdown (:mod:`swarmgym.workers.lifecycle`) the worker kills
the running swarm and the job is requeued for another host, not recorded.
"""
from __future__ import annotations

import logging
import os
import time

from celery import Task, shared_task
from celery.exceptions import Reject, SoftTimeLimitExceeded, TimeLimitExceeded

from swarmgym.campaigns.job import run_job
from swarmgym.core.errors import JobNotRun
from swarmgym.core.hosts import host_of
from swarmgym.core.states import JobStatus
from swarmgym.models import ErrorInfo, JobResult, JobSpec
from swarmgym.queue import claim, keys
from swarmgym.queue.appconfig import app_config
from swarmgym.workers.lifecycle import local_suite_hash
from swarmgym.workers.reaper import start_guard, stop_guard, sweep_descendants
from swarmgym.workers.sampler import sampler_factory

log = logging.getLogger(__name__)


def failed_result(job: JobSpec, host: str, status: JobStatus, err: ErrorInfo, started: float) -> JobResult:
    now = time.time()
    return JobResult(job=job, session_id=f"s-{job.job_id}", host=host, status=status, error=err,
                     started=started, finished=now, wall_secs=round(now - started, 3),
                     exit_code=124 if status == "timeout" else None)


def soft_limit_error(soft_limit: float | None) -> ErrorInfo:
    return ErrorInfo(type="SoftTimeLimitExceeded", message=f"killed at the soft time limit ({soft_limit}s)")


def execute(job: JobSpec, cfg, host: str, guard_pid: int | None, soft_limit: float | None,
            task_started: float | None = None) -> JobResult:
    """Run one job in this process; never raises.  The host load is :func:`run_job`'s to report."""
    started = time.time()
    task_started = task_started or started
    sampler = sampler_factory(cfg, exclude={guard_pid} if guard_pid else set())
    try:
        res = run_job(job, cfg, host=host, sampler=sampler)
    except SoftTimeLimitExceeded as e:  # raised between run_job's own guards
        log.warning("run_job %s: killed at the soft time limit (%ss)", job.job_id, soft_limit)
        res = failed_result(job, host, JobStatus.TIMEOUT, soft_limit_error(soft_limit) if soft_limit
                            else ErrorInfo.of(e), started)
    except Exception as e:  # run_job should not raise; if it does, the error is data
        log.exception("run_job %s crashed", job.job_id)
        res = failed_result(job, host, JobStatus.ERROR, ErrorInfo.of(e), started)
    hit = (res.error is not None and res.error.type == "SoftTimeLimitExceeded") or (
        soft_limit is not None and time.time() - task_started >= soft_limit)
    if hit and res.status != JobStatus.TIMEOUT:
        res = res.model_copy(update={"status": JobStatus.TIMEOUT, "exit_code": 124,
                                     "error": soft_limit_error(soft_limit)})
    return res


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
            claim.send_result(self.app, app_config(self.app), failed_result(job, host, status, err, time.time()))
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
    refuse_other_suite(self, cfg, spec, host)
    got = claim.take(cfg, spec, host, self.request.id)
    if not isinstance(got, claim.Claim):
        return got
    guard = start_guard(os.getpid())
    guard_pid = guard.pid if guard else None
    try:
        res = execute(spec, cfg, host, guard_pid, _soft_limit(self), task_started)
    finally:
        sweep_descendants(os.getpid(), {guard_pid} if guard_pid else set())
        stop_guard(guard)
        got.release()
    if got.draining():
        got.put_back()
        raise Reject(f"worker {self.request.hostname} shutting down: job requeued", requeue=True)
    res = got.send(self.app, res)
    if res.status in (JobStatus.ERROR, JobStatus.INFRA):  # could not run: FAILURE in Flower, with the reason
        err = res.error
        raise JobNotRun(f"{spec.job_id} on {host}: " + (f"{err.type}: {err.message}" if err else "no result")[:500])
    return task_result(res)


def refuse_other_suite(task, cfg, spec: JobSpec, host: str) -> None:
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
    claim.not_consuming(cfg, host, queue, why)
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
