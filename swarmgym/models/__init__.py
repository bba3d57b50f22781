"""Typed, versioned records shared by every part of swarmgym, one module per concept, all importable from here.

Everything persisted (ledger, run folders) or sent over the queue is one of these pydantic models and
travels as JSON.  Errors are data: :class:`ErrorInfo`.

- :mod:`~swarmgym.models.base`: the bases :class:`Model` (strict) and :class:`Tolerant`, ``SCHEMA_VERSION``
- :mod:`~swarmgym.models.error`: :class:`ErrorInfo` and the capped traceback
- :mod:`~swarmgym.models.verdict`: check results, dimensions, findings, the :class:`Verdict`
- :mod:`~swarmgym.models.goose`: goose's RunReport, session traces and pool, read tolerantly
- :mod:`~swarmgym.models.provenance`: what produced a record
- :mod:`~swarmgym.models.evidence`: a run as the adapter returned it and all collect gathered (:class:`Evidence`)
- :mod:`~swarmgym.models.jobs`: the tiers and the fleet's wire records (:class:`JobSpec`, :class:`JobResult`)
- :mod:`~swarmgym.models.change`: a campaign compared with its baseline (:class:`CampaignChange`)
- :mod:`~swarmgym.models.failure`: why a run failed (:class:`Failure`, :func:`classify`)
- :mod:`~swarmgym.models.ledger`: one ledger line (:class:`LedgerRecord`)
- :mod:`~swarmgym.models.session`: a run folder's ``session.json`` (:class:`SessionDoc`, :class:`Turn`)
"""
from __future__ import annotations

from swarmgym.models.base import SCHEMA_VERSION, Model, Tolerant
from swarmgym.models.change import CampaignChange, ChangeTest, ChangeVerdict
from swarmgym.models.error import TRACE_CHARS, TRACE_FRAMES, ErrorInfo, format_trace
from swarmgym.models.evidence import Evidence, FileEntry, HostSample, NetworkUse, RunOutcome
from swarmgym.models.failure import FAILURE_KINDS, Failure, classify, regraded
from swarmgym.models.goose import Attempt, DeviceStats, PoolDevice, RunReport, SessionTrace, TaskOutcome, ToolCall
from swarmgym.models.jobs import TIERS, JobResult, JobSpec
from swarmgym.models.ledger import LEDGER_SCHEMA_VERSION, LedgerRecord
from swarmgym.models.provenance import Isolation, Provenance
from swarmgym.models.session import SessionDoc, Turn
from swarmgym.models.verdict import CheckResult, DimensionResult, Finding, Overall, Severity, Status, Verdict

__all__ = [
    "FAILURE_KINDS", "LEDGER_SCHEMA_VERSION", "SCHEMA_VERSION", "TIERS", "TRACE_CHARS", "TRACE_FRAMES",
    "Attempt", "CampaignChange", "ChangeTest", "ChangeVerdict", "CheckResult", "DeviceStats", "DimensionResult",
    "ErrorInfo", "Evidence", "Failure", "FileEntry", "Finding", "HostSample", "Isolation", "JobResult", "JobSpec", "LedgerRecord",
    "Model", "NetworkUse", "Overall", "PoolDevice", "Provenance", "RunOutcome", "RunReport", "SessionDoc", "SessionTrace",
    "Severity", "Status", "TaskOutcome", "Tolerant", "ToolCall", "Turn", "Verdict", "classify", "format_trace", "regraded",
]
