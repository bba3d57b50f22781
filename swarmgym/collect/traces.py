"""Worker session traces from goose's SQLite ``sessions.db`` (opened read-only).

goose keeps one session per swarm task in ``messages(id, session_id, role, content_json,
created_timestamp, …)``.  ``content_json`` is a JSON list of items tagged by ``type``: tool
calls are ``toolRequest`` items (name at ``toolCall.value.name``), their results
``toolResponse`` items (``toolResult.status`` / ``isError``) matched by ``id``.
"""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from swarmgym.collect.report import is_mcp_name
from swarmgym.goose_paths import sessions_db
from swarmgym.models import SessionTrace, ToolCall

BUSY_TIMEOUT = 2.0


def default_sessions_db(env: Mapping[str, str] | None = None, configured: str | None = None) -> Path:
    """``configured`` (swarm.sessions_db), else where goose keeps it for ``env`` (:mod:`swarmgym.goose_paths`)."""
    if configured:
        return Path(configured).expanduser()
    return sessions_db(env)


def connect_ro(path: Path) -> sqlite3.Connection:
    """Open ``path`` read-only (no file is created, nothing is written)."""
    if not path.is_file():
        raise FileNotFoundError(f"no sessions.db at {path}")
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT)


def _items(content_json: Any) -> list[dict[str, Any]]:
    try:
        data = json.loads(content_json) if isinstance(content_json, (str, bytes)) else content_json
    except ValueError:
        return []
    if isinstance(data, dict):
        data = [data]
    return [x for x in data or [] if isinstance(x, dict)] if isinstance(data, list) else []


def _result_ok(item: dict[str, Any]) -> bool | None:
    res = item.get("toolResult")
    if not isinstance(res, dict):
        return None
    if res.get("status") == "error" or "error" in res and res.get("status") != "success":
        return False
    value = res.get("value")
    if isinstance(value, dict) and value.get("isError") is True:
        return False
    if res.get("isError") is True:
        return False
    return res.get("status") in (None, "success")


def trace_from_rows(session_id: str, rows: Iterable[tuple[str, Any]]) -> SessionTrace:
    """Build one SessionTrace from ``(role, content_json)`` rows in order."""
    calls: list[ToolCall] = []
    by_id: dict[str, ToolCall] = {}
    n = 0
    for _role, content in rows:
        n += 1
        for item in _items(content):
            kind = item.get("type")
            if kind == "toolRequest":
                call = item.get("toolCall") or {}
                value = call.get("value") if isinstance(call, dict) else None
                name = str((value or {}).get("name", "")) if isinstance(value, dict) else ""
                ok = False if isinstance(call, dict) and call.get("status") == "error" else None
                tc = ToolCall(name=name, is_mcp=is_mcp_name(name), ok=ok)
                calls.append(tc)
                if item.get("id"):
                    by_id[str(item["id"])] = tc
            elif kind == "toolResponse":
                tc = by_id.get(str(item.get("id")))
                ok = _result_ok(item)
                if tc is not None and ok is not None and tc.ok is not False:
                    tc.ok = ok
    return SessionTrace(session_id=session_id, messages=n, tool_calls=calls,
                        mcp_calls=sum(1 for c in calls if c.is_mcp), found=n > 0)


def read_traces(db_path: Path | str | None, session_ids: Iterable[str]) -> tuple[dict[str, SessionTrace], list[str]]:
    """One SessionTrace per session id (``found=False`` when absent); never raises."""
    ids = list(dict.fromkeys(s for s in session_ids if s))
    problems: list[str] = []
    missing = {sid: SessionTrace(session_id=sid, found=False) for sid in ids}
    if not ids:
        return {}, problems
    if db_path is None:
        return missing, ["traces: no sessions.db path known; worker traces not read"]
    path = Path(db_path).expanduser()
    try:
        con = connect_ro(path)
    except (OSError, sqlite3.Error) as e:
        return missing, [f"traces: cannot open {path}: {e}"]
    out: dict[str, SessionTrace] = {}
    try:
        for sid in ids:
            rows = con.execute("SELECT role, content_json FROM messages WHERE session_id = ? ORDER BY id",
                               (sid,)).fetchall()
            out[sid] = trace_from_rows(sid, rows) if rows else SessionTrace(session_id=sid, found=False)
    except sqlite3.Error as e:
        return missing, [f"traces: cannot read {path}: {e}"]
    finally:
        con.close()
    absent = [sid for sid, t in out.items() if not t.found]
    if absent:
        problems.append(f"traces: {len(absent)} of {len(ids)} task session(s) not in {path}: {', '.join(absent[:5])}")
    return out, problems
