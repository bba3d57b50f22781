"""One line of the ledger: :class:`LedgerRecord`."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from swarmgym.models.base import Model
from swarmgym.models.change import CampaignChange
from swarmgym.models.error import ErrorInfo
from swarmgym.models.failure import Failure
from swarmgym.models.provenance import Provenance

#: ledger records: 2 added ``change`` (campaign records compared with their baseline, issue #22); 3 added
#: ``failure`` (each run's failure class, issue #32)
LEDGER_SCHEMA_VERSION = 3


class LedgerRecord(Model):
    """One line of ledger/sessions.jsonl (docs/architecture.md section 7)."""

    schema_version: int = LEDGER_SCHEMA_VERSION
    """Version of this record's shape (2: campaign records may carry ``change``)."""
    kind: Literal["session", "campaign"] = "session"
    """session (one run) or campaign (one finished campaign)."""
    session_id: str
    """The run folder (``campaign:<id>`` for campaign records)."""
    job_id: str
    """Idempotency key: writing it twice changes nothing."""
    campaign_id: str
    """The campaign."""
    mode: Literal["benchmark", "exploratory"]
    """benchmark or exploratory."""
    spec: str
    """Spec id (exploratory: the archetype)."""
    archetype: str | None = None
    """Exploratory archetype."""
    app_slug: str
    """The app built."""
    variant: str
    """The build variant."""
    tier: str
    """The tier (explore for exploratory)."""
    rep: int = 0
    """Repetition index."""
    suite: str | None = None
    """Suite name."""
    suite_hash: str | None = None
    """Suite content hash: only runs on one hash are compared."""
    host: str = ""
    """The host that ran it."""
    turns: int = 1
    """Turns in the session."""
    overall: str
    """pass | partial | fail | error | infra."""
    functional: bool
    """Every golden check passed."""
    dimensions: dict[str, str] = Field(default_factory=dict)
    """Each dimension's status."""
    wall_secs: float = 0.0
    """Wall seconds."""
    exit_code: int | None = None
    """The swarm's exit status."""
    tasks_done: int = 0
    """Tasks reported done."""
    tasks_failed: int = 0
    """Tasks reported failed."""
    flags: dict[str, str] = Field(default_factory=dict)
    """Swarm flags in effect (they make the arm)."""
    idle_nodes: list[str] = Field(default_factory=list)
    """Devices flagged idle, starved or underused."""
    per_device: dict[str, int] = Field(default_factory=dict)
    """Tasks dispatched per device."""
    error: ErrorInfo | None = None
    """Why it did not grade."""
    ts: float
    """Unix time it was recorded (the job's finish)."""
    data: dict[str, Any] = Field(default_factory=dict)
    """Everything else (status, host load, finding counts, started/finished, …)."""
    provenance: Provenance = Field(default_factory=Provenance)
    """What produced it."""
    regrade_of: str | None = None
    """A re-grade under another suite: the job id of the original record (never replaces it)."""
    change: CampaignChange | None = None
    """Campaign records only: the campaign compared with its baseline (verdict and the numbers behind it)."""
    failure: Failure | None = None
    """Session records: why the run failed — its class, failing checks and requirements, starved devices
    (``kind="ok"`` when it passed; None in records older than schema 3)."""
