"""Turning what a job sends back into the ledger's record (docs/architecture.md section 7)."""
from __future__ import annotations

import time
from typing import Any, Literal, Sequence

from swarmgym.core.flags import record_flags
from swarmgym.core.states import JobStatus
from swarmgym.models import CampaignChange, ErrorInfo, Finding, JobResult, LedgerRecord, Provenance, classify

INFRA = "infra"


def record_from_result(result: JobResult, *, turns: int = 1, extra: dict[str, Any] | None = None) -> LedgerRecord:
    """The ledger record for one finished job — the one constructor of session records (bench,
    fleet coordinator, exploratory sessions alike).

    A job that ended with a verdict takes overall/functional/dimension statuses from it.  A job
    that *errored* (the harness could not finish it) is ``overall="error"``; a job that *timed out*
    is a ``"fail"`` of the swarm (a hung swarm is a result, not a harness fault).  A job that could
    not run at all is ``overall="infra"`` (kept out of pass rates).  All carry an ErrorInfo and are
    never functional unless a verdict proved otherwise.  ``provenance`` is the host's, and the
    record's ``flags`` are the flags the swarm ran with there.
    """
    job, verdict = result.job, result.verdict
    error = result.error
    dims: dict[str, str] = {}
    if verdict is not None:
        dims = {name: d.status for name, d in verdict.dimensions.items()}
    if result.status == JobStatus.INFRA:
        overall, functional = INFRA, False
        error = error or ErrorInfo(type="Infra", message=f"job {job.job_id} could not run")
    elif result.status == JobStatus.DONE and verdict is not None:
        overall, functional = verdict.overall, verdict.functional
    elif result.status == JobStatus.TIMEOUT:
        overall, functional = "fail", bool(verdict and verdict.functional)
        error = error or ErrorInfo(type="Timeout", message=f"job {job.job_id} timed out after {result.wall_secs:.0f}s")
    else:
        overall, functional = "error", False
        error = error or ErrorInfo(
            type="JobError" if result.status == JobStatus.ERROR else "MissingVerdict",
            message=f"job {job.job_id} ended with status {result.status!r}"
                    + ("" if verdict is not None else " and no verdict"))
    data: dict[str, Any] = {"status": result.status, **(extra or {})}
    if result.host_load:
        data["host_load"] = dict(result.host_load)
    if result.artefacts:
        data["artefacts"] = result.artefacts
    if result.network is not None:  # the box's own network: endpoints and bytes through the forwarder
        data["network"] = result.network.model_dump(mode="json")
    if result.pool:  # the campaign monitor judges each job against its own pool
        data["pool"] = [p.model_dump(mode="json") for p in result.pool]
    if result.started or result.finished:
        data["started"], data["finished"] = result.started, result.finished
    if verdict is not None:
        data["findings"] = _finding_counts(verdict.findings)
    return LedgerRecord(
        session_id=result.session_id, job_id=job.job_id, campaign_id=job.campaign_id, mode=job.mode,
        spec=job.spec, archetype=job.spec if job.mode == "exploratory" else None, app_slug=job.app_slug,
        variant=job.variant, tier=job.tier, rep=job.rep, suite=job.suite, suite_hash=job.suite_hash,
        host=result.host, turns=turns, overall=overall, functional=functional, dimensions=dims,
        wall_secs=result.wall_secs, exit_code=result.exit_code, tasks_done=result.tasks_done,
        tasks_failed=result.tasks_failed, flags=_flags(result), idle_nodes=list(result.idle_nodes),
        per_device=dict(result.per_device), error=error, ts=result.finished or time.time(), data=data,
        provenance=result.provenance,
        failure=result.failure or classify(overall if overall in (INFRA, "error") else result.status, verdict,
                                           error=f"{error.type}: {error.message}" if error else ""),
    )


def _flags(result: JobResult) -> dict[str, str]:
    """Flags as the host ran them; a result without provenance (an old worker) falls back to the job's."""
    return record_flags(result.provenance) if result.provenance.adapter else dict(result.job.flags)



def campaign_job_id(campaign_id: str) -> str:
    """The job id (and session id) of a campaign's own ledger record: ``campaign:<cid>``."""
    return f"campaign:{campaign_id}"


def campaign_record(campaign_id: str, *, variant: str, tier: str, overall: str,
                    findings: Sequence[Finding] = (), suite: str | None = None, suite_hash: str | None = None,
                    mode: Literal["benchmark", "exploratory"] = "benchmark", idle_nodes: Sequence[str] = (), data: dict[str, Any] | None = None,
                    ts: float | None = None, functional: bool = False,
                    provenance: Provenance | None = None, change: CampaignChange | None = None) -> LedgerRecord:
    """A campaign-level record (``kind="campaign"``, job_id ``campaign:<cid>``): written once.

    ``functional`` is true only when every job was (``data["functional_rate"]`` holds the rate);
    ``change`` is the campaign compared with its baseline (:mod:`swarmgym.trend.change`).
    """
    payload = dict(data or {})
    payload["findings"] = [f.model_dump() for f in findings]
    return LedgerRecord(
        kind="campaign", session_id=campaign_job_id(campaign_id), job_id=campaign_job_id(campaign_id),
        campaign_id=campaign_id, mode=mode, spec="*", app_slug="*", variant=variant, tier=tier,
        suite=suite, suite_hash=suite_hash, overall=overall, functional=functional,
        idle_nodes=list(idle_nodes), ts=ts or time.time(), data=payload,
        flags=record_flags(provenance) if provenance else {}, provenance=provenance or Provenance(),
        change=change,
    )


def _finding_counts(findings: list[Finding]) -> dict[str, int]:
    out: dict[str, int] = {}
    for f in findings:
        out[f.severity] = out.get(f.severity, 0) + 1
    return out
