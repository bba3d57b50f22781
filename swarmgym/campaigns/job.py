"""The job function: workspace → swarm adapter → collect → grade → a JobResult.

Plain Python: ``swarmgym bench`` calls :func:`run_job` in-process and the Celery host task wraps
it unchanged.  :func:`run_job` never raises — anything that goes wrong becomes a result with
status ``error`` and an :class:`ErrorInfo`, so a bad run never kills a campaign.
"""
from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from swarmgym import __version__ as swarmgym_version
from swarmgym.adapters import get_adapter
from swarmgym.adapters.provenance import swarm_provenance, with_pool
from swarmgym.campaigns.hostload import host_load
from swarmgym.collect import collect
from swarmgym.config import Config
from swarmgym.core.errors import AdapterError, SwarmgymError
from swarmgym.core.hosts import host_name
from swarmgym.core.ids import new_id
from swarmgym.core.states import JobStatus
from swarmgym.grading.grade import grade
from swarmgym.models import ErrorInfo, Evidence, JobResult, JobSpec, Provenance, SessionDoc, Turn, Verdict, classify
from swarmgym.reports.session import write_session
from swarmgym.suitekit.suite import Check, Spec, Suite, load_suite, seed_workspace

log = logging.getLogger(__name__)


def new_session_id(slug: str) -> str:
    return new_id(after=slug, nbytes=3)


def run_turn(workspace: str | Path, prompt: str, checks: list[Check], cfg: Config, *, adapter: str,
             variant: str, env: dict[str, str] | None = None, mcp: Iterable[str] = (), judge=None,
             seed: int = 0, sampler: Callable[[], Any] | None = None,
             requirements: list[str] | None = None, host: str | None = None,
             suite_hash: str | None = None, suite: str | None = None) -> tuple[Evidence, Verdict]:
    """Run the swarm once in ``workspace`` and grade what it built.

    ``sampler()`` (a context manager with ``.samples``) watches the host while the swarm runs; its
    samples are taken when the swarm exits, before grading.  ``evidence.provenance`` says what ran.
    """
    ws = Path(workspace)
    ws.mkdir(parents=True, exist_ok=True)
    host = host or host_name()
    swarm = get_adapter(adapter, cfg)
    run_env = {**swarm.job_env(variant, seed, suite), **(env or {})}
    prov = swarm_provenance(swarm, adapter, run_env, seed=seed, suite_hash=suite_hash, host=host)
    watch = sampler() if sampler is not None else contextlib.nullcontext()
    with watch as s:
        outcome = swarm.run(prompt, ws, mcp=tuple(mcp) or tuple(cfg.swarm.mcp), env=run_env, timeout=cfg.swarm.timeout)
    evidence = collect(ws, outcome, cfg)
    evidence.host = host
    evidence.host_samples = list(getattr(s, "samples", None) or [])
    evidence.provenance = with_pool(prov, evidence.pool)
    verdict = grade(ws, checks, cfg, evidence=evidence, judge=judge, prompt=prompt, requirements=requirements)
    return evidence, verdict


def turn_from(n: int, kind: str, prompt: str, evidence: Evidence, verdict: Verdict, wall: float) -> Turn:
    """The Turn record of one graded run (shared by bench and exploratory sessions)."""
    cluster = verdict.dimensions.get("cluster")
    diag = verdict.dimensions.get("diagnostics")
    return Turn(n=n, kind=kind, prompt=prompt, verdict=verdict, run=evidence.run, pool=evidence.pool,
                per_device=(cluster.data.get("per_device", {}) if cluster else {}),
                diagnostics_by_model=(diag.data.get("by_model", {}) if diag else {}),
                wall_secs=round(wall, 3),
                data={"problems": evidence.problems, "event_counts": evidence.event_counts,
                      "files": len(evidence.files), "host_samples": len(evidence.host_samples)})


def _summary(evidence: Evidence, verdict: Verdict) -> dict[str, Any]:
    rep = evidence.report
    cluster = verdict.dimensions.get("cluster")
    return {
        "exit_code": evidence.run.exit_code if evidence.run else None,
        "tasks_done": len(rep.done) if rep else 0,
        "tasks_failed": len(rep.failed) if rep else 0,
        "per_device": cluster.data.get("per_device", {}) if cluster else {},
        "idle_nodes": cluster.data.get("idle_nodes", []) if cluster else [],
        "pool": evidence.pool,
        "host_load": host_load(evidence.host_samples),
        "network": evidence.run.network if evidence.run else None,
    }


class CannotRun(Exception):
    """The job could not run at all (status ``infra``): carries the one-line reason."""


def preflight_job(job: JobSpec, cfg: Config, host: str) -> tuple[Suite, Spec]:
    """The suite and spec of ``job`` on this host; CannotRun if the swarm cannot run it here."""
    try:
        suite = load_suite(job.suite, cfg.suites_dir)
        if suite.hash != job.suite_hash:
            raise CannotRun(f"suite {job.suite} on host {host} hashes to {suite.hash}, job expects {job.suite_hash}")
        spec = suite.spec(job.spec)
        swarm = get_adapter(job.swarm, cfg)
        swarm.preflight(job.variant)
        if hasattr(swarm, "binary"):
            swarm.binary()
    except SwarmgymError as e:
        raise CannotRun(f"{type(e).__name__}: {e}") from None
    return suite, spec


def base_provenance(job: JobSpec, cfg: Config, host: str) -> Provenance:
    """What a job that never reached its swarm can still say about itself."""
    try:
        swarm = get_adapter(job.swarm, cfg)
        run_env = {**swarm.job_env(job.variant, job.seed, job.suite), **job.flags, **job.env}
        return swarm_provenance(swarm, job.swarm, run_env, seed=job.seed,
                                suite_hash=job.suite_hash, host=host)
    except Exception:  # an unknown adapter etc.: the bare facts
        return Provenance(adapter=job.swarm, seed=job.seed, suite_hash=job.suite_hash, host=host,
                          swarmgym_version=swarmgym_version)


def run_job(job: JobSpec, cfg: Config, *, host: str | None = None, sampler=None,
            session_id: str | None = None) -> JobResult:
    """Run one spec x rep job end to end. Never raises.

    Status ``infra`` when it could not run at all (suite mismatch, no binary, preflight failed),
    ``error`` when the harness failed after the swarm started, else ``done`` / ``timeout``.
    """
    host = host or host_name()
    sid = session_id or new_session_id(job.app_slug)
    started = time.time()
    watching: list[Any] = []  # the sampler run_turn made: its samples are the host load, even if the job fails

    def watch():
        watching.append(sampler())
        return watching[-1]

    doc = SessionDoc(session_id=sid, job_id=job.job_id, campaign_id=job.campaign_id, mode=job.mode, spec=job.spec,
                     app_slug=job.app_slug, variant=job.variant, tier=job.tier, suite=job.suite,
                     suite_hash=job.suite_hash, host=host, started=started,
                     data={"rep": job.rep, "flags": job.flags, "swarm": job.swarm})
    result = JobResult(job=job, session_id=sid, host=host, status=JobStatus.ERROR, started=started)
    try:
        from swarmgym.core.errors import IsolationError
        from swarmgym.isolation import boxed_config

        try:
            cfg, result.provenance.isolation = boxed_config(cfg, job.swarm)
            doc.provenance.isolation = result.provenance.isolation
            suite, spec = preflight_job(job, cfg, host)
        except (CannotRun, IsolationError):
            result.status = JobStatus.INFRA
            raise
        prompt, checks = spec.prompt_for(job.hard), spec.checks_for(job.hard)
        ws = cfg.apps_dir / job.app_slug / sid
        doc.workspace = str(ws)
        if started_with := seed_workspace(suite, spec, ws):  # a continue-existing spec: the app to extend
            doc.data["starter_files"] = len(started_with)
        try:
            evidence, verdict = run_turn(ws, prompt, checks, cfg, adapter=job.swarm, variant=job.variant,
                                         env={**job.flags, **job.env}, seed=job.seed, host=host,
                                         sampler=watch if sampler is not None else None,
                                         suite_hash=job.suite_hash, suite=job.suite)
        except AdapterError:  # the swarm could not be started
            result.status = JobStatus.INFRA
            raise
        wall = time.time() - started
        doc.turns.append(turn_from(1, "bench", prompt, evidence, verdict, wall))
        timed_out = bool(evidence.run and evidence.run.timed_out)
        prov = (evidence.provenance or base_provenance(job, cfg, host)).model_copy(
            update={"isolation": result.provenance.isolation})
        status = JobStatus.TIMEOUT if timed_out else JobStatus.DONE
        result = result.model_copy(update={"status": status, "verdict": verdict, "wall_secs": round(wall, 3),
                                           "provenance": prov, **_summary(evidence, verdict),
                                           "failure": classify(status, verdict, {c.name: c.covers or [] for c in checks})})
        doc.overall, doc.functional = verdict.overall, verdict.functional
    except Exception as e:
        if result.status == JobStatus.INFRA:  # could not run (no binary, no box, other suite): its one line says why
            log.warning("job %s could not run: %s: %s", job.job_id, type(e).__name__, e)
        else:
            log.exception("job %s failed", job.job_id)
        result.error = ErrorInfo.of(e)
        result.wall_secs = round(time.time() - started, 3)
        result.provenance = base_provenance(job, cfg, host).model_copy(
            update={"isolation": result.provenance.isolation})
        if watching:  # the swarm ran (or started): how the host fared meanwhile
            result.host_load = host_load(list(getattr(watching[-1], "samples", None) or []))
        doc.error = result.error
        doc.overall = "infra" if result.status == "infra" else "error"
        doc.turns.append(Turn(n=1, kind="bench", error=result.error, wall_secs=result.wall_secs))
    doc.provenance = result.provenance
    result.finished = doc.finished = time.time()
    try:
        write_session(cfg.runs_dir, doc, secrets=cfg.secrets)
        result.artefacts = str(cfg.runs_dir / sid)
    except Exception as e:  # the verdict stands even if the report could not be written
        log.exception("job %s: run folder not written", job.job_id)
        result.artefacts = None
        doc.data["report_error"] = ErrorInfo.of(e).model_dump()
    return result
