"""One schema for what goose local-edition writes, checked against the goose fixtures *and* the
simulator's output.  Written from goose's Rust structs (cited per model); strict: a field goose
does not write is an error, a field goose writes may not be missing, ``Option<…>`` is nullable.
"""
from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}\+00:00$")  # chrono RFC 3339, Nanos, +00:00
RUN_ID = re.compile(r"^swarm-\d{8}-\d{9}$")
SESSION_ID = re.compile(r"^\d{8}_\d+$")  # session_manager.rs create_session
REPORT_ORDER = ["done", "salvaged", "failed", "bonus", "planned_files", "results", "context_json",
                "dispatched_per_device", "tasks", "per_device"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ToolCallRecord(Strict):  # goose-swarm dispatch.rs ToolCallRecord
    name: str
    is_mcp: bool
    ok: bool | None
    fetched_external: bool


class AttemptRecord(Strict):  # scheduler.rs AttemptRecord
    device: str | None
    model: str | None
    outcome: Literal["ok", "transient", "terminal"]
    error: str | None
    elapsed_ms: int


class DeviceSummary(Strict):  # scheduler.rs DeviceSummary
    dispatched: int
    tool_calls: int
    mcp_calls: int
    retries: int
    busy_ms: int


class TaskOutcome(Strict):  # scheduler.rs TaskOutcome
    task_id: str
    status: Literal["done", "salvaged", "failed", "incomplete"]
    salvaged: bool
    completion: dict[str, Any] | None  # TaskCompletionDisposition, tagged by "kind"
    device: str | None
    model: str | None
    attempts: int
    attempt_history: list[AttemptRecord]
    elapsed_ms: int | None  # the final attempt's wall clock
    session_id: str | None
    tool_calls: list[ToolCallRecord]
    output: str | None
    owns_nothing: bool

    @model_validator(mode="after")
    def _consistent(self) -> TaskOutcome:
        assert self.attempts == len(self.attempt_history), f"{self.task_id}: attempts != len(attempt_history)"
        if self.attempt_history:
            assert self.elapsed_ms == self.attempt_history[-1].elapsed_ms, \
                f"{self.task_id}: elapsed_ms is not the final attempt's"
            assert self.device == self.attempt_history[-1].device, f"{self.task_id}: device is not the final attempt's"
        assert self.salvaged == (self.status == "salvaged"), f"{self.task_id}: salvaged flag"
        if self.completion is not None:
            assert self.completion.get("kind") in ("complete", "salvaged"), f"{self.task_id}: completion.kind"
        if self.session_id is not None:
            assert SESSION_ID.match(self.session_id), f"{self.task_id}: session id {self.session_id!r}"
        return self


class RunReport(Strict):  # scheduler.rs RunReport
    done: list[str]
    salvaged: list[str]
    failed: list[str]
    bonus: list[str]
    planned_files: list[str]
    results: dict[str, str]
    context_json: Any
    dispatched_per_device: dict[str, int]
    tasks: list[TaskOutcome]
    per_device: dict[str, DeviceSummary]

    @model_validator(mode="after")
    def _lists_match_tasks(self) -> RunReport:
        by_status = {s: [t.task_id for t in self.tasks if t.status == s] for s in ("done", "salvaged", "failed")}
        assert sorted(self.done) == sorted(by_status["done"]), "done != tasks with status done"
        assert sorted(self.salvaged) == sorted(by_status["salvaged"]), "salvaged != tasks with status salvaged"
        assert sorted(self.failed) == sorted(by_status["failed"]), "failed != tasks with status failed"
        assert set(self.bonus) <= {t.task_id for t in self.tasks}, "bonus names an unknown task"
        for dev, n in self.dispatched_per_device.items():
            if dev in self.per_device:
                assert self.per_device[dev].dispatched == n, f"{dev}: per_device.dispatched != dispatched_per_device"
        return self


class PoolEntry(Strict):  # goose-cli swarm.rs SwarmDevice as run_started lists it (enabled only)
    id: str
    model_id: str
    weight: int
    instances: int


class PlanTask(Strict):  # plan_loaded.tasks[]
    id: str
    deps: list[str]
    files: list[str]
    difficulty: Literal["easy", "medium", "hard"]
    model: str | None


class RunStarted(Strict):
    prompt: str
    planner_model: str
    endpoint: str
    working_dir: str
    max_turns: int
    max_attempts: int
    pool: list[PoolEntry]


class PlanLoaded(Strict):
    task_count: int
    tasks: list[PlanTask]
    raw_plan_json: str


class TaskDispatched(Strict):  # event.rs SwarmEvent::TaskDispatched
    task_id: str
    device: str
    model: str
    attempt: int
    deps: list[str]
    owned_files: list[str]
    context_slice_len: int


class TaskCompleted(Strict):  # event.rs SwarmEvent::TaskCompleted (no output field)
    task_id: str
    status: str
    device: str | None
    model: str | None
    attempts: int
    elapsed_ms: int
    session_id: str | None
    error: str | None
    tool_calls: list[ToolCallRecord]


class TaskRetry(Strict):
    task_id: str
    from_device: str | None
    error: str
    transient: bool


class SchedulerStuck(Strict):
    remaining: int


class Empty(Strict):  # RunPaused, RunUnpaused
    pass


class Replanned(Strict):
    round: int
    added: list[str]
    stopped: bool


class TaskSplit(Strict):
    task_id: str
    children: list[str]


class Speculated(Strict):
    task_id: str
    attempt: int
    winner: str


class JudgeVerdict(Strict):
    task_id: str
    device: str
    verdict: str
    confidence: float
    hint: str
    action: str
    deterministic: bool


class PreReview(Strict):
    task_id: str
    device: str
    had_findings: bool
    secs: float


class RunFinished(Strict):
    report: RunReport


EVENTS: dict[str, type[Strict]] = {
    "run_started": RunStarted, "plan_loaded": PlanLoaded, "task_dispatched": TaskDispatched,
    "task_completed": TaskCompleted, "task_retry": TaskRetry, "scheduler_stuck": SchedulerStuck,
    "run_paused": Empty, "run_unpaused": Empty, "replanned": Replanned, "task_split": TaskSplit,
    "speculated": Speculated, "judge_verdict": JudgeVerdict, "pre_review": PreReview, "run_finished": RunFinished,
}
#: caller events whose fields were not read from the source: only the envelope is checked
ENVELOPE_ONLY = {"fleet_resolved", "device_unservable", "planner_fallback", "levers_resolved"}


def check_report(data: Any) -> RunReport:
    """Raise AssertionError unless ``data`` is a goose RunReport in goose's field order."""
    assert isinstance(data, dict) and list(data) == REPORT_ORDER, f"report keys/order: {list(data)[:12]}"
    try:
        return RunReport.model_validate(data)
    except ValidationError as e:
        raise AssertionError(f"RunReport: {e}") from None


def check_log(path: Path) -> list[dict[str, Any]]:
    """Every whole line of a goose event log, checked; a cut last line is allowed (and skipped)."""
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines = lines[:-1]
    events = []
    for n, line in enumerate(lines):
        try:
            e = json.loads(line)
        except ValueError:
            assert n == len(lines) - 1 and not raw.endswith(b"\n"), f"{path.name}:{n + 1}: not JSON"
            continue
        assert list(e)[:4] == ["ts", "run_id", "seq", "event"], f"{path.name}:{n + 1}: envelope {list(e)[:4]}"
        assert TS.match(e["ts"]), f"{path.name}:{n + 1}: ts {e['ts']!r}"
        assert RUN_ID.match(e["run_id"]) and path.name == f"run-{e['run_id']}.jsonl", f"run_id {e['run_id']!r}"
        assert e["seq"] == n, f"{path.name}:{n + 1}: seq {e['seq']} (goose counts from 0)"
        body = {k: v for k, v in e.items() if k not in ("ts", "run_id", "seq", "event")}
        kind = e["event"]
        assert kind in EVENTS or kind in ENVELOPE_ONLY, f"{path.name}:{n + 1}: event {kind!r} goose does not write"
        if kind in EVENTS:
            try:
                EVENTS[kind].model_validate(body)
            except ValidationError as err:
                raise AssertionError(f"{path.name}:{n + 1}: {kind}: {err}") from None
        if kind == "run_finished":
            check_report(e["report"])
        events.append(e)
    return events


SESSION_COLUMNS = {"id", "name", "description", "user_set_name", "session_type", "working_dir", "created_at",
                   "updated_at", "extension_data", "total_tokens", "input_tokens", "output_tokens",
                   "cache_read_tokens", "cache_write_tokens", "accumulated_total_tokens", "accumulated_input_tokens",
                   "accumulated_output_tokens", "accumulated_cache_read_tokens", "accumulated_cache_write_tokens",
                   "accumulated_cost", "schedule_id", "recipe_json", "user_recipe_values_json", "provider_name",
                   "model_config_json", "goose_mode", "archived_at", "project_id"}
MESSAGE_COLUMNS = {"id", "message_id", "session_id", "role", "content_json", "created_timestamp", "timestamp",
                   "tokens", "metadata_json"}


def check_sessions(db: Path) -> dict[str, list[tuple[str, list[dict[str, Any]], int]]]:
    """goose's sessions.db schema and content JSON; returns ``{session_id: [(role, items, created)]}``."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        cols = {t: {r[1] for r in con.execute(f"PRAGMA table_info({t})")} for t in ("sessions", "messages")}
        assert cols["sessions"] == SESSION_COLUMNS, f"sessions columns: {cols['sessions'] ^ SESSION_COLUMNS}"
        assert cols["messages"] == MESSAGE_COLUMNS, f"messages columns: {cols['messages'] ^ MESSAGE_COLUMNS}"
        assert con.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] == 14
        out: dict[str, list[tuple[str, list[dict[str, Any]], int]]] = {}
        for sid, stype in con.execute("SELECT id, session_type FROM sessions"):
            assert SESSION_ID.match(sid), f"session id {sid!r}"
            assert stype in ("user", "scheduled", "sub_agent", "hidden", "terminal", "gateway", "acp")
            out[sid] = []
        for sid, role, content, created in con.execute(
                "SELECT session_id, role, content_json, created_timestamp FROM messages ORDER BY id"):
            assert role in ("user", "assistant")
            items = json.loads(content)
            assert isinstance(items, list)
            for it in items:
                assert it["type"] in ("text", "toolRequest", "toolResponse", "thinking", "image"), it["type"]
                if it["type"] == "toolRequest":
                    assert it["id"] and it["toolCall"]["status"] in ("success", "error")
                    assert it["toolCall"]["status"] == "error" or it["toolCall"]["value"]["name"]
                if it["type"] == "toolResponse":
                    assert it["id"] and it["toolResult"]["status"] in ("success", "error")
            out.setdefault(sid, []).append((role, items, created))
        return out
    finally:
        con.close()
