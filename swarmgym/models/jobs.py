"""The wire records of the fleet: a planned job (:class:`JobSpec`) and what it sends back (:class:`JobResult`)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from swarmgym.core.states import JobStatus
from swarmgym.models.base import SCHEMA_VERSION, Model
from swarmgym.models.error import ErrorInfo
from swarmgym.models.evidence import NetworkUse
from swarmgym.models.failure import Failure
from swarmgym.models.goose import PoolDevice
from swarmgym.models.provenance import Provenance
from swarmgym.models.verdict import Verdict

TIERS: dict[str, int] = {  # tier -> the fewest runs it plans (0: every spec once); see campaign.tier_shape
    "smoke": 1, "light": 0, "medium": 15, "high": 30, "extreme": 30,
}


class JobSpec(Model):
    """One spec x rep of a campaign; what the queue carries to a host."""

    schema_version: int = SCHEMA_VERSION
    """Version of this record's shape."""
    job_id: str
    """Unique per planned job: ``<campaign_id>-<seq>``; the ledger's idempotency key."""
    campaign_id: str
    """The campaign it belongs to."""
    mode: Literal["benchmark", "exploratory"] = "benchmark"
    """benchmark (frozen suite) or exploratory."""
    suite: str
    """Suite name."""
    suite_hash: str
    """The suite content hash the job expects; a host with another hash refuses it."""
    spec: str
    """The spec id within the suite."""
    app_slug: str
    """The app the spec builds."""
    variant: str
    """The build variant (mlx, gguf, …): the queue it goes to."""
    tier: str
    """smoke | light | medium | high | extreme."""
    rep: int
    """Repetition index within the spec."""
    seq: int = 0
    """Position in the campaign's interleaved plan."""
    hard: bool = False
    """Use the hard prompt and the hard-only checks (tier extreme)."""
    swarm: str = "sim"
    """The adapter to run it with."""
    pin_host: str | None = None
    """Run only on this host (queue ``host.<name>``)."""
    flags: dict[str, str] = Field(default_factory=dict)
    """``GOOSE_SWARM_*`` flags to set for the swarm."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment for the swarm (knobs, simulator overrides)."""
    seed: int = 0
    """The seed the simulator draws with."""


class JobResult(Model):
    """What a finished job sends back; the coordinator turns it into a ledger record."""

    schema_version: int = SCHEMA_VERSION
    """Version of this record's shape."""
    job: JobSpec
    """The job that ran."""
    session_id: str
    """Its run folder: ``runs/<session_id>/``."""
    host: str
    """The host that ran it."""
    # infra: the job could not run at all (no binary, preflight failed, suite mismatch); never a pass/fail
    status: JobStatus = JobStatus.DONE
    """done (graded), timeout, error, or infra (could not run at all)."""
    verdict: Verdict | None = None
    """The grading, when there is one."""
    wall_secs: float = 0.0
    """Wall seconds from start to result."""
    exit_code: int | None = None
    """The swarm's exit status."""
    tasks_done: int = 0
    """Tasks the swarm reported done."""
    tasks_failed: int = 0
    """Tasks the swarm reported failed."""
    per_device: dict[str, int] = Field(default_factory=dict)
    """Tasks dispatched per device."""
    pool: list[PoolDevice] = Field(default_factory=list)
    """The pool as the run saw it."""
    idle_nodes: list[str] = Field(default_factory=list)
    """Devices the cluster dimension flagged."""
    host_load: dict[str, float] = Field(default_factory=dict)
    """Summary of the host's psutil samples (cpu_mean, load1_max, samples)."""
    network: NetworkUse | None = None
    """The swarm box's own network: the model endpoints it reached and the bytes that went through
    (None where it had none: ``--isolation none``, seatbelt)."""
    artefacts: str | None = None
    """Where the run folder is (or was shipped from)."""
    error: ErrorInfo | None = None
    """What went wrong, when status is not done."""
    started: float = 0.0
    """Unix time the job started."""
    finished: float = 0.0
    """Unix time the job finished."""
    provenance: Provenance = Field(default_factory=Provenance)
    """What produced it, as the host ran it."""
    failure: Failure | None = None
    """Why it failed, classified on the host from its verdict and the suite's ``covers``."""
