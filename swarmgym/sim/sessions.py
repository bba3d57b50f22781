"""Write worker sessions the way goose does: one session per task in ``sessions.db``.

The schema mirrors goose's (``sessions``, ``messages(id, message_id, session_id, role,
content_json, created_timestamp, …)``, WAL journal).  Tool calls are ``toolRequest`` items
answered by ``toolResponse`` items in the next user message.  Session ids are derived from the
seed, so re-running the same seed replaces that run's sessions.
"""
from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT OR IGNORE INTO schema_version (version) VALUES (14);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT,
    model_config_json TEXT, goose_mode TEXT NOT NULL DEFAULT 'auto');
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id);
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


def write_sessions(db_path: Path, working_dir: str, sessions: list[dict[str, Any]]) -> None:
    """Insert (or replace) each ``{id, name, model, messages}`` session in goose's schema."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(db_path, timeout=30)
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.executescript(SCHEMA)
        now = int(time.time())
        with con:
            for s in sessions:
                con.execute("DELETE FROM messages WHERE session_id = ?", (s["id"],))
                con.execute("DELETE FROM sessions WHERE id = ?", (s["id"],))
                con.execute("INSERT INTO sessions (id, name, description, session_type, working_dir, provider_name,"
                            " model_config_json) VALUES (?, ?, ?, 'sub_agent', ?, 'lmstudio', ?)",
                            (s["id"], s["name"], s["name"], working_dir, json.dumps({"model_name": s["model"]})))
                for n, (role, items) in enumerate(s["messages"]):
                    con.execute("INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp)"
                                " VALUES (?, ?, ?, ?, ?)",
                                (f"msg_{s['id']}_{n}", s["id"], role, json.dumps(items), now))
    finally:
        con.close()
