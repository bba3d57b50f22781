"""A session's run folder: ``runs/<session_id>/session.json`` (:class:`SessionDoc`, one :class:`Turn` each turn)."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from swarmgym.models.base import SCHEMA_VERSION, Model
from swarmgym.models.error import ErrorInfo
from swarmgym.models.evidence import RunOutcome
from swarmgym.models.goose import PoolDevice
from swarmgym.models.provenance import Provenance
from swarmgym.models.verdict import Verdict


class Turn(Model):
    """One turn of a session: what was asked, what ran, how it was graded."""

    n: int
    """Turn number from 1."""
    kind: str = "bench"
    """bench | open | feature | fix | tests | refactor | mcp-feature | change-direction | tweak-rerun."""
    prompt: str = ""
    """What the swarm was asked."""
    verdict: Verdict | None = None
    """How the result was graded."""
    run: RunOutcome | None = None
    """What the swarm run returned."""
    per_device: dict[str, int] = Field(default_factory=dict)
    """Tasks dispatched per device."""
    pool: list[PoolDevice] = Field(default_factory=list)
    """The pool as the run saw it."""
    diagnostics_by_model: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Diagnostics findings counted per model."""
    tweak: dict[str, Any] | None = None
    """{proposal, applied, rejected, before{dev:n}, after{dev:n}} for a tweak."""
    wall_secs: float = 0.0
    """Wall seconds of the turn."""
    error: ErrorInfo | None = None
    """Why the turn did not grade."""
    data: dict[str, Any] = Field(default_factory=dict)
    """Problems, event counts, file counts, …"""


class SessionDoc(Model):
    """Everything about one session; written as runs/<session_id>/session.json."""

    schema_version: int = SCHEMA_VERSION
    """Version of this record's shape."""
    session_id: str
    """The run folder's name."""
    job_id: str = ""
    """The job (benchmark)."""
    campaign_id: str = ""
    """The campaign."""
    mode: Literal["benchmark", "exploratory"] = "benchmark"
    """benchmark or exploratory."""
    spec: str = ""
    """Spec id."""
    archetype: str | None = None
    """Exploratory archetype."""
    app_slug: str = ""
    """The app."""
    variant: str = ""
    """The build variant."""
    tier: str = ""
    """The tier."""
    suite: str | None = None
    """Suite name."""
    suite_hash: str | None = None
    """Suite content hash."""
    host: str = ""
    """The host that ran it."""
    workspace: str = ""
    """Where the swarm built the app."""
    turns: list[Turn] = Field(default_factory=list)
    """The turns, in order."""
    overall: str = "error"
    """The session's verdict (the last graded turn's)."""
    functional: bool = False
    """Every golden check passed on the last turn."""
    started: float = 0.0
    """Unix start time."""
    finished: float = 0.0
    """Unix finish time."""
    error: ErrorInfo | None = None
    """Why it did not grade."""
    data: dict[str, Any] = Field(default_factory=dict)
    """Anything else (flags, swarm, checks, monitor, …)."""
    provenance: Provenance = Field(default_factory=Provenance)
    """What produced it."""
