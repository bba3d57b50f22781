"""Write worker sessions the way goose does: one session per task in ``sessions.db``.

The schema is goose's (``crates/goose/src/session/session_manager.rs`` ``create_schema``, schema
version 14): ``sessions`` and ``messages(id, message_id, session_id, role, content_json,
created_timestamp, timestamp, tokens, metadata_json)``, WAL journal.  Session ids are goose's
(``create_session``): the UTC date ``YYYYMMDD``, ``_``, and one more than the highest counter of
that date already in the database — allocated in one ``BEGIN IMMEDIATE`` transaction, so they are
unique per database even with runs side by side.  ``content_json`` holds goose's ``MessageContent``
items: tool calls are ``toolRequest`` items answered by ``toolResponse`` items.  Every timestamp
comes from the run's simulated clock.
"""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from swarmgym.sim.clock import SimClock

SCHEMA_VERSION = 14
SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    cache_read_tokens INTEGER, cache_write_tokens INTEGER, accumulated_total_tokens INTEGER,
    accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER, accumulated_cache_read_tokens INTEGER,
    accumulated_cache_write_tokens INTEGER, accumulated_cost REAL, schedule_id TEXT, recipe_json TEXT,
    user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
    goose_mode TEXT NOT NULL DEFAULT 'auto', archived_at TIMESTAMP, project_id TEXT);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id);
CREATE INDEX IF NOT EXISTS idx_messages_timestamp ON messages(timestamp);
CREATE INDEX IF NOT EXISTS idx_messages_message_id ON messages(message_id);
CREATE INDEX IF NOT EXISTS idx_sessions_updated ON sessions(updated_at DESC);
CREATE INDEX IF NOT EXISTS idx_sessions_type ON sessions(session_type);
"""


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def tool_request(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "toolRequest", "id": call_id,
            "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}}}


def tool_response(call_id: str, ok: bool, output: str) -> dict[str, Any]:
    return {"type": "toolResponse", "id": call_id,
            "toolResult": {"status": "success", "value": {"content": [text(output)], "isError": not ok}}}


def build_messages(brief: str, calls: list[dict[str, Any]], final: str) -> list[tuple[str, list[dict]]]:
    """``[(role, content items)]`` for one task: brief, tool call/response pairs, final claim."""
    msgs: list[tuple[str, list[dict]]] = [("user", [text(brief)])]
    for i, c in enumerate(calls):
        cid = f"call_{i}"
        msgs.append(("assistant", [tool_request(cid, c["name"], c.get("arguments", {}))]))
        msgs.append(("user", [tool_response(cid, c["ok"], c.get("output", "ok"))]))
    msgs.append(("assistant", [text(final)]))
    return msgs


def connect(db_path: Path) -> sqlite3.Connection:
    """Open (creating goose's schema if missing) in autocommit mode; callers BEGIN IMMEDIATE."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(db_path, timeout=30, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("BEGIN IMMEDIATE")
    try:
        for stmt in filter(str.strip, SCHEMA.split(";")):
            con.execute(stmt)
        con.execute("INSERT OR IGNORE INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        con.close()
        raise
    return con


def create_sessions(db_path: Path, working_dir: str, clock: SimClock,
                    wanted: list[tuple[str, str, float]]) -> dict[str, str]:
    """Create one ``sub_agent`` session per ``(task_id, model, created_at_minutes)``; return their ids."""
    con = connect(db_path)
    ids: dict[str, str] = {}
    try:
        con.execute("BEGIN IMMEDIATE")
        for task_id, model, at in wanted:
            day = clock.day(at)
            row = con.execute("SELECT MAX(CAST(SUBSTR(id, 10) AS INTEGER)) FROM sessions WHERE id LIKE ? || '_%'",
                              (day,)).fetchone()
            sid = f"{day}_{(row[0] or 0) + 1}"
            con.execute("INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, created_at,"
                        " updated_at, extension_data, provider_name, model_config_json, goose_mode)"
                        " VALUES (?, ?, FALSE, 'sub_agent', ?, ?, ?, '{}', 'lmstudio', ?, 'auto')",
                        (sid, task_id, working_dir, clock.sql(at), clock.sql(at),
                         json.dumps({"model_name": model})))
            ids[task_id] = sid
        con.execute("COMMIT")
    finally:
        if con.in_transaction:
            con.execute("ROLLBACK")
        con.close()
    return ids


def write_messages(db_path: Path, clock: SimClock, sessions: list[dict[str, Any]]) -> None:
    """Append each ``{id, start, end, messages}`` session's messages, spread over its attempt."""
    con = connect(db_path)
    try:
        con.execute("BEGIN IMMEDIATE")
        for s in sessions:
            msgs = s["messages"]
            for n, (role, items) in enumerate(msgs):
                at = s["start"] + (s["end"] - s["start"]) * n / max(1, len(msgs) - 1)
                con.execute("INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp,"
                            " timestamp) VALUES (?, ?, ?, ?, ?, ?)",
                            (f"msg_{s['id']}_{n}", s["id"], role, json.dumps(items), clock.epoch_s(at),
                             clock.sql(at)))
            con.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (clock.sql(s["end"]), s["id"]))
        con.execute("COMMIT")
    finally:
        if con.in_transaction:
            con.execute("ROLLBACK")
        con.close()
