"""Typed, versioned records shared by every part of swarmgym.

Everything persisted (ledger, run folders) or sent over the queue is one of these
pydantic models and travels as JSON.  Errors are data: :class:`ErrorInfo`.
"""
from __future__ import annotations

import traceback as _traceback
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from swarmgym.states import JobStatus

SCHEMA_VERSION = 1
#: ledger records: 2 added ``change`` (campaign records compared with their baseline, issue #22)
LEDGER_SCHEMA_VERSION = 2

Status = Literal["pass", "partial", "fail", "error", "n/a"]
Overall = Literal["pass", "partial", "fail", "error"]
Severity = Literal["high", "medium", "low", "info"]
TIERS: dict[str, int] = {  # tier -> the fewest runs it plans (0: every spec once); see campaign.tier_shape
    "smoke": 1, "light": 0, "medium": 15, "high": 30, "extreme": 30,
}


class Model(BaseModel):
    """Every record: unknown fields are an error; each field's docstring is its JSON-schema description."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class Tolerant(BaseModel):
    """For data read from tools we do not control: unknown fields are kept."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)


TRACE_FRAMES = 30
"""At most this many frames of a traceback are kept (the innermost ones: where it failed)."""
TRACE_CHARS = 4000
"""At most this many characters of a traceback are kept (its end)."""


def format_trace(exc: BaseException) -> str | None:
    """``exc``'s traceback as Python prints it (chained causes included), capped to its last
    :data:`TRACE_FRAMES` frames and last :data:`TRACE_CHARS` characters; ``None`` if it was never raised."""
    if exc.__traceback__ is None:
        return None
    text = "".join(_traceback.format_exception(exc, limit=-TRACE_FRAMES))
    return text if len(text) <= TRACE_CHARS else "…" + text[-(TRACE_CHARS - 1):]


class ErrorInfo(Model):
    type: str
    """The exception's class name (e.g. ``AdapterError``)."""
    message: str
    """What went wrong, in one line (at most 2000 characters)."""
    traceback: str | None = None
    """Where it went wrong: the formatted traceback, innermost frame last (its last 30 frames and 4,000
    characters); ``None`` for an error noted without an exception, and in records written before it was kept."""

    @classmethod
    def of(cls, exc: BaseException) -> "ErrorInfo":
        return cls(type=type(exc).__name__, message=str(exc)[:2000], traceback=format_trace(exc))


class Finding(Model):
    severity: Severity
    """``high`` sinks the verdict to fail, ``medium`` to partial; ``low`` and ``info`` only inform."""
    dimension: str
    """The dimension that found it (checks, swarm, cluster, diagnostics, …)."""
    message: str
    """What was found."""
    hint: str = ""
    """How to fix it."""


class CheckResult(Model):
    name: str
    """The golden check's name (from suite.yaml)."""
    kind: str
    """command_succeeds | file_exists | file_contains | file_matches | tool_called."""
    passed: bool
    """Whether the check passed."""
    exit_code: int | None = None
    """The command's exit status (command_succeeds only)."""
    duration_s: float = 0.0
    """Wall seconds the check took."""
    timed_out: bool = False
    """Killed at the check timeout."""
    stdout_tail: str = ""
    """The last bytes of stdout (``checks.output_cap``)."""
    stderr_tail: str = ""
    """The last bytes of stderr."""
    detail: str = ""
    """One line on why it passed or failed."""


class DimensionResult(Model):
    name: str
    """swarm | checks | cluster | diagnostics | requirements | code_quality | bugs."""
    status: Status
    """pass | partial | fail | error (the dimension crashed) | n/a (not graded)."""
    summary: str = ""
    """One line for reports."""
    findings: list[Finding] = Field(default_factory=list)
    """What this dimension found."""
    data: dict[str, Any] = Field(default_factory=dict)
    """Dimension-specific detail (check results, per-device rows, …)."""
    error: ErrorInfo | None = None
    """Why the dimension crashed, if it did."""


class Verdict(Model):
    overall: Overall
    """fail if any dimension fails or any finding is high; partial if anything is partial, errored or medium; else pass."""
    functional: bool
    """True only when every golden check passed."""
    dimensions: dict[str, DimensionResult] = Field(default_factory=dict)
    """Each graded dimension by name."""
    findings: list[Finding] = Field(default_factory=list)
    """All dimensions' findings together."""

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
    """The swarm adapter that ran it (goose, sim, command)."""
    argv: list[str] = Field(default_factory=list)
    """The command line, long arguments shortened."""
    exit_code: int
    """The swarm's exit status; 124 when swarmgym killed it at the timeout."""
    report: RunReport | None = None
    """The RunReport, parsed tolerantly."""
    report_source: Literal["stdout", "events", "none"] = "none"
    """Where the report came from: stdout, rebuilt from events, or none."""
    stdout_tail: str = ""
    """The last bytes of stdout."""
    stderr_tail: str = ""
    """The last bytes of stderr."""
    event_log: str | None = None
    """Path of the run's ``.swarm/run-*.jsonl``."""
    wall_secs: float = 0.0
    """Wall seconds the swarm ran."""
    timed_out: bool = False
    """Killed at ``swarm.timeout``."""
    has_fleet_log: bool = True
    """False for swarms that keep no fleet log (command)."""
    sessions_db: str | None = None
    """The goose sessions.db the traces were read from."""
    problems: list[str] = Field(default_factory=list)
    """What could not be read, one line each."""
    limits_hit: list[str] = Field(default_factory=list)
    """Resource caps the swarm hit (its box's memory cap, the workspace-size budget), one line each;
    any fails the swarm dimension."""


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
    """What produced a record, as the host ran it (docs/architecture.md section 7).

    Filled on the host that ran the job (never from the enqueuer's view) and copied into every
    ledger record and session.json, so a ledger line alone says which swarm, build, flags, seed,
    isolation and host produced it.
    """

    adapter: str = ""
    """The swarm adapter: sim | goose | command."""
    binary: str | None = None
    """The swarm executable as resolved on the host."""
    binary_version: str | None = None
    """First line of ``<binary> --version``."""
    fleet_hash: str | None = None
    """sim only: hash of the fleet file it read."""
    goose_config_hash: str | None = None
    """goose and sim: hash of the operator's pristine goose config folder each run starts from (a fresh
    copy per job); None when there is none or the swarm keeps no goose config (command)."""
    flags: dict[str, str] = Field(default_factory=dict)
    """``GOOSE_SWARM_*`` as the swarm saw them."""
    knobs: dict[str, Any] = Field(default_factory=dict)
    """Pool and tweaker knobs in effect."""
    seed: int | None = None
    """The seed the swarm ran with (the simulator's draw)."""
    isolation: Isolation = "none"
    """The isolation backend: bwrap | seatbelt | none."""
    swarmgym_version: str = ""
    """The swarmgym version that ran the job."""
    suite_hash: str | None = None
    """Content hash of the suite the host loaded."""
    host: str = ""
    """The host that ran the job."""

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


ChangeVerdict = Literal["regressed", "improved", "no change", "not comparable"]


class ChangeTest(Model):
    """One exact test of a campaign against its baseline: all specs together (``*``) or one spec."""

    spec: str
    """The spec id, or ``*`` for every spec the two sides share."""
    test: Literal["mcnemar", "fisher"]
    """``mcnemar``: exact McNemar on the discordant (spec, seed) pairs (the seeds matched); ``fisher``:
    Fisher's exact test of two independent pass rates."""
    nights: int = 1
    """Campaigns pooled on the new side: this one plus the ``nights - 1`` before it since the last change."""
    passes: int
    """Functional runs on the new side (infra runs never count)."""
    runs: int
    """Graded runs on the new side."""
    base_passes: int
    """Functional runs in the baseline."""
    base_runs: int
    """Graded runs in the baseline."""
    b: int | None = None
    """McNemar only: pairs the baseline passed and the new side failed."""
    c: int | None = None
    """McNemar only: pairs the baseline failed and the new side passed."""
    p: float
    """Exact two-sided p-value (for ``*``: Bonferroni-corrected over the windows tested)."""
    q: float | None = None
    """Benjamini–Hochberg adjusted p-value over the night's family (None: informational, not in a family)."""
    verdict: ChangeVerdict = "no change"
    """``regressed`` / ``improved`` when ``q`` is at or below its alpha, else ``no change``."""

    @property
    def rate(self) -> float:
        return self.passes / self.runs if self.runs else float("nan")

    @property
    def base_rate(self) -> float:
        return self.base_passes / self.base_runs if self.base_runs else float("nan")

    @property
    def diff(self) -> float:
        return self.rate - self.base_rate


class CampaignChange(Model):
    """What changed: a finished campaign compared with its arm's baseline (docs/trend.md)."""

    schema_version: int = 1
    """Version of this record's shape."""
    verdict: ChangeVerdict
    """``regressed`` if the whole or any spec got worse, else ``improved`` if any got better, else ``no change``;
    ``not comparable`` when there is nothing to compare with (first campaign, suite hash, adapter or prompt
    set differ)."""
    reason: str
    """The verdict in one line, with its numbers."""
    arm: str
    """The arm (adapter, variant and flags, as the hosts ran them), as ``bench-report`` names it."""
    series: str
    """What the baseline is drawn from: ``schedule:<name>``, or ``arm:<arm>`` for a campaign no schedule started."""
    schedule: str | None = None
    """The schedule that started the campaign (its ``on_change`` alarm applies)."""
    baseline_rule: Literal["pinned", "pooled", "none"]
    """``pinned`` (``swarmgym baseline set``), ``pooled`` (the series' campaigns since the last change), or
    ``none`` (nothing comparable)."""
    baseline: list[str] = Field(default_factory=list)
    """The baseline's campaign ids, newest first."""
    build: str | None = None
    """The swarm build this campaign ran (binary version; the simulator adds its fleet hash)."""
    baseline_builds: list[str] = Field(default_factory=list)
    """The builds the baseline ran."""
    alpha: float
    """The level of the overall test (``trend.alpha``)."""
    spec_alpha: float
    """The false-discovery rate of the per-spec tests (``trend.spec_alpha``)."""
    overall: ChangeTest | None = None
    """The deciding overall test: the window of nights with the smallest p-value."""
    windows: list[ChangeTest] = Field(default_factory=list)
    """The overall test of each window tested (1, 2, … nights on the new side)."""
    specs: list[ChangeTest] = Field(default_factory=list)
    """One test per spec (this campaign alone against the baseline)."""
    previous: ChangeTest | None = None
    """This campaign against the previous campaign of the series alone (paired when the seeds match);
    informational."""
    counts: dict[str, list[int]] = Field(default_factory=dict)
    """This campaign's own ``[passes, runs]`` per spec: what later campaigns pool."""
    family: int = 0
    """Tests in the night's per-spec FDR family (this campaign's and the other arms' finished that night)."""
    created: float = 0.0
    """When the campaign was planned (orders the series)."""
    hard: bool = False
    """Graded on the hard prompts (tier extreme): never compared with normal prompts."""


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


# --- sessions (runs/<session_id>/) -------------------------------------------------------

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
