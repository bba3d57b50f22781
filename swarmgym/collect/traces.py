"""Worker session traces from goose's SQLite ``sessions.db`` (opened read-only).

goose keeps one session per swarm task in ``messages(id, session_id, role, content_json,
created_timestamp, …)``.  ``content_json`` is a JSON list of items tagged by ``type``: tool
calls are ``toolRequest`` items (name at ``toolCall.value.name``), their results
``toolResponse`` items (``toolResult.status`` / ``isError``) matched by ``id``.

goose's state folders are writable by the swarm, so the database is opened only if it, its folder and
its ``-wal``/``-shm`` companions are plain (no link, no FIFO) and it is within a size cap; all task
sessions are read with one query, and at most :data:`MAX_READ` bytes of messages.
"""
from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from swarmgym.collect import jsonbound
from swarmgym.collect.goose_paths import sessions_db
from swarmgym.collect.report import is_mcp_name
from swarmgym.models import SessionTrace, ToolCall
from swarmgym.trust import safefs

BUSY_TIMEOUT = 2.0
MAX_DB_MB = 1024          # a larger sessions.db is not opened (swarm.sessions_db_max_mb)
MAX_READ = 64 << 20       # bytes of message content read for one job
CHUNK = 500               # session ids per query (SQLite's variable limit is 999 on old builds)


def default_sessions_db(env: Mapping[str, str] | None = None, configured: str | None = None) -> Path:
    """``configured`` (swarm.sessions_db), else where goose keeps it for ``env`` (:mod:`swarmgym.collect.goose_paths`)."""
    if configured:
        return Path(configured).expanduser()
    return sessions_db(env)


def _plain(path: Path) -> None:
    """``path`` is absent or a regular file, and not a link; its folder is not a link either (goose's
    state folders are writable by the swarm, which could plant a link to another database or a FIFO)."""
    for p, must_exist in ((path.parent, True), (path, True), (path.with_name(path.name + "-wal"), False),
                          (path.with_name(path.name + "-shm"), False)):
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            if must_exist:
                raise FileNotFoundError(f"no sessions.db at {path}") from None
            continue
        want = stat.S_ISDIR if p == path.parent else stat.S_ISREG
        if not want(st.st_mode):
            raise OSError(f"{p} is a {safefs.kind_of(st.st_mode)}, not a plain "
                          f"{'folder' if p == path.parent else 'file'}; not opened")


def connect_ro(path: Path, max_bytes: int | None = None) -> sqlite3.Connection:
    """Open ``path`` read-only (no file is created, nothing is written); never through a link, never
    a FIFO, never a file larger than ``max_bytes``."""
    path = Path(os.path.abspath(path))
    _plain(path)
    size = os.lstat(path).st_size
    if max_bytes is not None and size > max_bytes:
        raise OSError(f"{path} is {size // (1 << 20)} MB, over the {max_bytes // (1 << 20)} MB cap "
                      "(swarm.sessions_db_max_mb); not read")
    uri = f"file:{quote(str(path))}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT)


def _items(content_json: Any) -> list[dict[str, Any]]:
    try:
        data = jsonbound.loads(content_json) if isinstance(content_json, (str, bytes)) else content_json
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
                tc = by_id.get(str(item.get("id")))  # type: ignore[assignment]
                ok = _result_ok(item)
                if tc is not None and ok is not None and tc.ok is not False:
                    tc.ok = ok
    return SessionTrace(session_id=session_id, messages=n, tool_calls=calls,
                        mcp_calls=sum(1 for c in calls if c.is_mcp), found=n > 0)


def read_traces(db_path: Path | str | None, session_ids: Iterable[str], *, max_mb: int = MAX_DB_MB,
                max_read: int = MAX_READ) -> tuple[dict[str, SessionTrace], list[str]]:
    """One SessionTrace per session id (``found=False`` when absent); never raises.  One query for all
    the ids (in chunks of :data:`CHUNK`), rows streamed, at most ``max_read`` bytes of messages read."""
    ids = list(dict.fromkeys(s for s in session_ids if s))
    problems: list[str] = []
    missing = {sid: SessionTrace(session_id=sid, found=False) for sid in ids}
    if not ids:
        return {}, problems
    if db_path is None:
        return missing, ["traces: no sessions.db path known; worker traces not read"]
    path = Path(db_path).expanduser()
    try:
        con = connect_ro(path, max_mb * (1 << 20))
    except (OSError, sqlite3.Error) as e:
        return missing, [f"traces: cannot open {path}: {e}"]
    rows: dict[str, list[tuple[str, Any]]] = {sid: [] for sid in ids}
    read = 0
    try:
        for i in range(0, len(ids), CHUNK):
            chunk = ids[i:i + CHUNK]
            sql = (f"SELECT session_id, role, content_json FROM messages WHERE session_id IN "
                   f"({','.join('?' * len(chunk))}) ORDER BY id")
            for sid, role, content in con.execute(sql, chunk):
                read += len(content or "")
                if read > max_read:
                    problems.append(f"traces: more than {max_read // (1 << 20)} MB of messages in {path}; "
                                    "the rest not read")
                    break
                rows[sid].append((role, content))
            if read > max_read:
                break
    except sqlite3.Error as e:
        return missing, [f"traces: cannot read {path}: {e}"]
    finally:
        con.close()
    out = {sid: trace_from_rows(sid, r) if r else SessionTrace(session_id=sid, found=False) for sid, r in rows.items()}
    absent = [sid for sid, t in out.items() if not t.found]
    if absent:
        problems.append(f"traces: {len(absent)} of {len(ids)} task session(s) not in {path}: {', '.join(absent[:5])}")
    return out, problems
