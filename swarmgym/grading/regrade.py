"""Re-grade a finished campaign's stored workspaces under another suite (e.g. bench-v1 runs under bench-v2).

Each session record of the campaign whose spec the new suite has gets a NEW ledger record: the
golden checks of the new suite (hard ones for the extreme tier) run against the workspace the swarm
left, ``suite``/``suite_hash`` are the new suite's, ``regrade_of`` names the original job and the
job id is ``<job>@<suite hash>`` — so the originals are never replaced and running it twice writes
nothing new (idempotent per job and suite hash).  Only the checks dimension is re-graded: the other
dimensions judged the swarm's behaviour, which a new ruler does not change.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from swarmgym.config import Config
from swarmgym.core.errors import UsageError
from swarmgym.grading.grade import CHECKS, grade
from swarmgym.ledger.store import Ledger
from swarmgym.models import LedgerRecord, regraded
from swarmgym.suitekit.suite import Suite


class RegradeRow(BaseModel):
    job_id: str
    new_job_id: str
    spec: str
    status: str  # written | exists | skipped
    functional: bool | None = None
    was_functional: bool | None = None
    failed: list[str] = Field(default_factory=list)
    reason: str = ""


def regrade_job_id(job_id: str, suite: Suite) -> str:
    return f"{job_id}@{suite.hash}"


def workspace_of(rec: LedgerRecord, cfg: Config) -> Path:
    return cfg.apps_dir / rec.app_slug / rec.session_id


def regrade_record(rec: LedgerRecord, suite: Suite, cfg: Config) -> tuple[LedgerRecord | None, RegradeRow]:
    """The re-grade of one original record (None when it cannot be re-graded, with the reason)."""
    new_id = regrade_job_id(rec.job_id, suite)
    row = RegradeRow(job_id=rec.job_id, new_job_id=new_id, spec=rec.spec, status="skipped",
                     was_functional=rec.functional)
    spec = next((s for s in suite.specs if rec.spec in (s.id, s.app_slug)), None)
    ws = workspace_of(rec, cfg)
    if spec is None:
        row.reason = f"suite {suite.name} has no spec {rec.spec!r}"
        return None, row
    if not ws.is_dir():
        row.reason = f"workspace {ws} is gone"
        return None, row
    started = time.time()
    results = grade(ws, spec.checks_for(rec.tier == "extreme"), cfg, dimensions=CHECKS, strict=True).check_results()
    failed = [r.name for r in results if not r.passed]
    row.status, row.functional, row.failed = "written", not failed, failed
    new = rec.model_copy(update={
        "job_id": new_id, "suite": suite.name, "suite_hash": suite.hash, "regrade_of": rec.job_id,
        "overall": "fail" if failed else "pass", "functional": not failed,
        "dimensions": {"checks": "fail" if failed else "pass"}, "error": None, "ts": time.time(),
        "failure": regraded(rec.failure, rec.dimensions.get("swarm"), failed,
                            {c.name: c.covers or [] for c in spec.checks_for(rec.tier == "extreme")}),
        "provenance": rec.provenance.model_copy(update={"suite_hash": suite.hash}),
        "data": {"regrade": True, "regrade_of": rec.job_id, "original_suite": rec.suite,
                 "original_suite_hash": rec.suite_hash, "original_overall": rec.overall,
                 "checks_failed": failed, "checks": len(results), "regrade_secs": round(time.time() - started, 3)}})
    return new, row


def regrade_campaign(campaign_id: str, suite: Suite, cfg: Config,
                     on_row: Callable[[RegradeRow], None] | None = None) -> list[RegradeRow]:
    """Re-grade every session of ``campaign_id`` under ``suite``; append new records to the ledger."""
    ledger = Ledger(cfg.ledger_dir)
    originals = [r for r in ledger.records(kind="session", campaign_id=campaign_id) if r.regrade_of is None]
    if not originals:
        raise UsageError(f"campaign {campaign_id!r}: no session records in {cfg.ledger_dir}")
    rows = []
    for rec in originals:
        if ledger.has_job(regrade_job_id(rec.job_id, suite)):
            row = RegradeRow(job_id=rec.job_id, new_job_id=regrade_job_id(rec.job_id, suite), spec=rec.spec,
                             status="exists", was_functional=rec.functional)
        else:
            new, row = regrade_record(rec, suite, cfg)
            if new is not None and not ledger.record(new):
                row.status = "exists"
        rows.append(row)
        if on_row:
            on_row(row)
    return rows
