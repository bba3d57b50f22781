"""goose's own records as swarmgym reads them (tolerant): the local edition's RunReport, its
session traces and its device pool.
"""
from __future__ import annotations

from typing import Any

from pydantic import Field

from swarmgym.models.base import Model, Tolerant

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


class SessionTrace(Model):
    session_id: str
    messages: int = 0
    tool_calls: list[ToolCall] = Field(default_factory=list)
    mcp_calls: int = 0
    found: bool = True


class PoolDevice(Tolerant):
    id: str
    model_id: str | None = None
    weight: float = 1.0
    instances: int = 1
    enabled: bool = True
    host: str | None = None
