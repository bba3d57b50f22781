"""The states a job and a campaign can be in, as typed string enums.

They serialise as their plain values (``"done"``, ``"finalized"`` …), so records, Redis hashes and
JSON stay as they were; code compares against the enum instead of spelling the string again.
"""
from __future__ import annotations

from enum import StrEnum


class JobStatus(StrEnum):
    """How a job ended (``JobResult.status``): graded (``done``), cut at the swarm timeout, errored, or could
    not run at all (``infra``)."""

    DONE = "done"
    ERROR = "error"
    TIMEOUT = "timeout"
    INFRA = "infra"  # the job could not run at all (no binary, preflight failed, suite mismatch): never a pass/fail


class JobState(StrEnum):
    """Where a job of a fleet campaign is (the ``swarmgym:campaign:<cid>:jobs`` hash in Redis)."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    UNKNOWN = "unknown"  # neither in Redis nor recorded (e.g. after a Redis flush): `resume` re-sends it


class CampaignStatus(StrEnum):
    """A campaign's status: ``running`` until every job is recorded, then ``complete`` (embedded) or
    ``finalized`` (fleet: the coordinator wrote the campaign record and reports); ``cancelled`` by the user."""

    RUNNING = "running"
    CANCELLED = "cancelled"
    COMPLETE = "complete"
    FINALIZED = "finalized"

    @property
    def terminal(self) -> bool:
        return self is not CampaignStatus.RUNNING
