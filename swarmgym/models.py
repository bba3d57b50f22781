"""Typed, versioned records shared by every part of swarmgym.

Everything persisted (ledger, run folders) or sent over the queue is one of these
pydantic models and travels as JSON.  Errors are data: :class:`ErrorInfo`.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1

Status = Literal["pass", "partial", "fail", "error", "n/a"]
Overall = Literal["pass", "partial", "fail", "error"]
Severity = Literal["high", "medium", "low", "info"]
TIERS: dict[str, tuple[int, int]] = {  # tier -> (specs, reps)
    "smoke": (1, 1), "light": (3, 1), "medium": (3, 5), "high": (3, 10), "extreme": (3, 10),
}


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Tolerant(BaseModel):
    """For data read from tools we do not control: unknown fields are kept."""

    model_config = ConfigDict(extra="allow")


class ErrorInfo(Model):
    type: str
    message: str

    @classmethod
    def of(cls, exc: BaseException) -> "ErrorInfo":
        return cls(type=type(exc).__name__, message=str(exc)[:2000])


class Finding(Model):
    severity: Severity
    dimension: str
    message: str
    hint: str = ""


class CheckResult(Model):
    name: str
    kind: str
    passed: bool
    exit_code: int | None = None
    duration_s: float = 0.0
    timed_out: bool = False
    stdout_tail: str = ""
    stderr_tail: str = ""
    detail: str = ""


class DimensionResult(Model):
    name: str
    status: Status
    summary: str = ""
    findings: list[Finding] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)
    error: ErrorInfo | None = None


class Verdict(Model):
    overall: Overall
    functional: bool
    dimensions: dict[str, DimensionResult] = Field(default_factory=dict)
    findings: list[Finding] = Field(default_factory=list)

    def status(self, dim: str) -> str:
        d = self.dimensions.get(dim)
        return d.status if d else "n/a"


# --- goose local-edition RunReport (tolerant) -------------------------------------------
# Mirrors goose's crates/goose-swarm/src/scheduler.rs (RunReport, TaskOutcome, AttemptRecord,
# DeviceSummary) and dispatch.rs (ToolCallRecord).  Versions differ: unknown fields are kept,
# missing ones take these defaults, every Option<…> of goose's is nullable here.

class ToolCall(Tolerant):
    """goose ``dispatch.rs`` ``ToolCallRecord``."""

    name: str = ""
    is_mcp: bool = False
    ok: bool | None = None
    fetched_external: bool = False


class Attempt(Tolerant):
    """goose ``scheduler.rs`` ``AttemptRecord`` (outcome ``ok`` | ``transient`` | ``terminal``)."""

    device: str | None = None
    model: str | None = None
    outcome: str | None = None
    error: str | None = None
    elapsed_ms: int | None = None


class TaskOutcome(Tolerant):
    """goose ``scheduler.rs`` ``TaskOutcome``.  ``elapsed_ms`` is the final attempt's wall clock."""

    task_id: str = ""
    status: str = "incomplete"  # done | salvaged | failed | incomplete
    salvaged: bool = False
    completion: dict[str, Any] | None = None  # TaskCompletionDisposition: {"kind": "complete" | "salvaged", …}
    device: str | None = None
    model: str | None = None
    attempts: int = 0
    attempt_history: list[Attempt] = Field(default_factory=list)
    elapsed_ms: int | None = None
    session_id: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    output: str | None = None
    owns_nothing: bool = False


class DeviceStats(Tolerant):
    """goose ``scheduler.rs`` ``DeviceSummary``."""

    dispatched: int = 0
    tool_calls: int = 0
    mcp_calls: int = 0
    retries: int = 0
    busy_ms: int = 0


class RunReport(Tolerant):
    """goose ``scheduler.rs`` ``RunReport`` (printed with ``to_string_pretty``)."""

    done: list[str] = Field(default_factory=list)
    salvaged: list[str] = Field(default_factory=list)
    failed: list[str] = Field(default_factory=list)
    bonus: list[str] = Field(default_factory=list)
    planned_files: list[str] = Field(default_factory=list)
    results: dict[str, str] = Field(default_factory=dict)
    context_json: Any = None
    dispatched_per_device: dict[str, int] = Field(default_factory=dict)
    tasks: list[TaskOutcome] = Field(default_factory=list)
    per_device: dict[str, DeviceStats] = Field(default_factory=dict)

    def blocking_failures(self) -> list[str]:
        """Failed tasks that fail the run: not bonus (goose's ``bonus``) and not owning nothing
        (goose's ``owns_nothing``: a model self-report that never vetoes a good app)."""
        owns_nothing = {t.task_id for t in self.tasks if t.owns_nothing}
        failed = self.failed or [t.task_id for t in self.tasks if t.status == "failed"]
        return [tid for tid in dict.fromkeys(failed) if tid not in self.bonus and tid not in owns_nothing]

    def tolerated_failures(self) -> list[str]:
        """Failed bonus or owns-nothing tasks: the run is partial at most."""
        failed = self.failed or [t.task_id for t in self.tasks if t.status == "failed"]
        blocking = set(self.blocking_failures())
        return [tid for tid in dict.fromkeys(failed) if tid not in blocking]


class RunOutcome(Model):
    """What a swarm adapter returns for one run."""

    adapter: str
    argv: list[str] = Field(default_factory=list)
    exit_code: int
    report: RunReport | None = None
    report_source: Literal["stdout", "events", "none"] = "none"
    stdout_tail: str = ""
    stderr_tail: str = ""
    event_log: str | None = None
    wall_secs: float = 0.0
    timed_out: bool = False
    has_fleet_log: bool = True
    sessions_db: str | None = None
    problems: list[str] = Field(default_factory=list)


class SessionTrace(Model):
    session_id: str
    messages: int = 0
    tool_calls: list[ToolCall] = Field(default_factory=list)
    mcp_calls: int = 0
    found: bool = True


class FileEntry(Model):
    path: str
    size: int
    sha256: str


class PoolDevice(Tolerant):
    id: str
    model_id: str | None = None
    weight: float = 1.0
    instances: int = 1
    enabled: bool = True
    host: str | None = None


class HostSample(Model):
    ts: float
    cpu_percent: float
    mem_percent: float
    load1: float
    swarm_procs: int = 0
    swarm_cpu_percent: float = 0.0
    swarm_rss_mb: float = 0.0


class Evidence(Model):
    """All that collect gathered about one run: the input to verify."""

    workspace: str
    run: RunOutcome | None = None
    events: list[dict[str, Any]] = Field(default_factory=list)
    event_counts: dict[str, int] = Field(default_factory=dict)
    pool: list[PoolDevice] = Field(default_factory=list)
    traces: dict[str, SessionTrace] = Field(default_factory=dict)
    files: list[FileEntry] = Field(default_factory=list)
    files_truncated: bool = False
    host: str | None = None
    host_samples: list[HostSample] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    provenance: "Provenance | None" = None  # what ran, as this host ran it

    @property
    def report(self) -> RunReport | None:
        return self.run.report if self.run else None


# --- jobs -------------------------------------------------------------------------------

Isolation = Literal["bwrap", "seatbelt", "none"]


class Provenance(Model):
    """What produced a record, as the host ran it (DESIGN.md section 7).

    Filled on the host that ran the job (never from the enqueuer's view) and copied into every
    ledger record and session.json, so a ledger line alone says which swarm, build, flags, seed,
    isolation and host produced it.
    """

    adapter: str = ""  # sim | goose | command
    binary: str | None = None  # the swarm executable as resolved on the host
    binary_version: str | None = None  # first line of `<binary> --version`
    fleet_hash: str | None = None  # sim only: hash of the fleet file it read
    flags: dict[str, str] = Field(default_factory=dict)  # GOOSE_SWARM_* as the swarm saw them
    knobs: dict[str, Any] = Field(default_factory=dict)  # pool/tweaker knobs in effect
    seed: int | None = None
    isolation: Isolation = "none"
    swarmgym_version: str = ""
    suite_hash: str | None = None
    host: str = ""

class JobSpec(Model):
    """One spec x rep of a campaign; what the queue carries to a host."""

    schema_version: int = SCHEMA_VERSION
    job_id: str
    campaign_id: str
    mode: Literal["benchmark", "exploratory"] = "benchmark"
    suite: str
    suite_hash: str
    spec: str
    app_slug: str
    variant: str
    tier: str
    rep: int
    seq: int = 0
    hard: bool = False
    swarm: str = "sim"
    pin_host: str | None = None
    flags: dict[str, str] = Field(default_factory=dict)
    env: dict[str, str] = Field(default_factory=dict)
    seed: int = 0


class JobResult(Model):
    """What a finished job sends back; the coordinator turns it into a ledger record."""

    schema_version: int = SCHEMA_VERSION
    job: JobSpec
    session_id: str
    host: str
    # infra: the job could not run at all (no binary, preflight failed, suite mismatch); never a pass/fail
    status: Literal["done", "error", "timeout", "infra"] = "done"
    verdict: Verdict | None = None
    wall_secs: float = 0.0
    exit_code: int | None = None
    tasks_done: int = 0
    tasks_failed: int = 0
    per_device: dict[str, int] = Field(default_factory=dict)
    pool: list[PoolDevice] = Field(default_factory=list)
    idle_nodes: list[str] = Field(default_factory=list)
    host_load: dict[str, float] = Field(default_factory=dict)
    artefacts: str | None = None
    error: ErrorInfo | None = None
    started: float = 0.0
    finished: float = 0.0
    provenance: Provenance = Field(default_factory=Provenance)


class LedgerRecord(Model):
    """One line of ledger/sessions.jsonl (DESIGN.md section 7)."""

    schema_version: int = SCHEMA_VERSION
    kind: Literal["session", "campaign"] = "session"
    session_id: str
    job_id: str
    campaign_id: str
    mode: Literal["benchmark", "exploratory"]
    spec: str
    archetype: str | None = None
    app_slug: str
    variant: str
    tier: str
    rep: int = 0
    suite: str | None = None
    suite_hash: str | None = None
    host: str = ""
    turns: int = 1
    overall: str
    functional: bool
    dimensions: dict[str, str] = Field(default_factory=dict)
    wall_secs: float = 0.0
    exit_code: int | None = None
    tasks_done: int = 0
    tasks_failed: int = 0
    flags: dict[str, str] = Field(default_factory=dict)
    idle_nodes: list[str] = Field(default_factory=list)
    per_device: dict[str, int] = Field(default_factory=dict)
    error: ErrorInfo | None = None
    ts: float
    data: dict[str, Any] = Field(default_factory=dict)
    provenance: Provenance = Field(default_factory=Provenance)


# --- sessions (runs/<session_id>/) -------------------------------------------------------

class Turn(Model):
    """One turn of a session: what was asked, what ran, how it was graded."""

    n: int
    kind: str = "bench"  # bench | open | feature | fix | tests | refactor | mcp-feature | change-direction | tweak-rerun
    prompt: str = ""
    verdict: Verdict | None = None
    run: RunOutcome | None = None
    per_device: dict[str, int] = Field(default_factory=dict)
    pool: list[PoolDevice] = Field(default_factory=list)
    diagnostics_by_model: dict[str, dict[str, int]] = Field(default_factory=dict)
    tweak: dict[str, Any] | None = None  # {proposal, applied, rejected, before{dev:n}, after{dev:n}}
    wall_secs: float = 0.0
    error: ErrorInfo | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class SessionDoc(Model):
    """Everything about one session; written as runs/<session_id>/session.json."""

    schema_version: int = SCHEMA_VERSION
    session_id: str
    job_id: str = ""
    campaign_id: str = ""
    mode: Literal["benchmark", "exploratory"] = "benchmark"
    spec: str = ""
    archetype: str | None = None
    app_slug: str = ""
    variant: str = ""
    tier: str = ""
    suite: str | None = None
    suite_hash: str | None = None
    host: str = ""
    workspace: str = ""
    turns: list[Turn] = Field(default_factory=list)
    overall: str = "error"
    functional: bool = False
    started: float = 0.0
    finished: float = 0.0
    error: ErrorInfo | None = None
    data: dict[str, Any] = Field(default_factory=dict)
    provenance: Provenance = Field(default_factory=Provenance)
