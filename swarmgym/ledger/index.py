"""``ledger/ledger.sqlite``: a WAL-mode index over the jsonl, rebuildable at any time.

One row per job_id (UNIQUE; the first line for a job wins), the columns reports need read
directly (no JSON parsing on the hot path), and the full record JSON.  ``meta`` remembers how
far into the jsonl the index has read (byte offset and line count), so opening a ledger only
reads lines appended since, and a missing or stale index is rebuilt from the jsonl.
"""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Iterable

from swarmgym.core.errors import LedgerError
from swarmgym.models import LedgerRecord

INDEX_VERSION = 3  # 2: adapter and seed columns (from provenance); 3: build, replays, failure

COLUMNS = ("job_id", "kind", "session_id", "campaign_id", "mode", "spec", "archetype", "app_slug",
           "variant", "tier", "rep", "suite", "suite_hash", "host", "overall", "functional",
           "checks", "swarm", "cluster", "diagnostics", "wall_secs", "exit_code", "tasks_done",
           "tasks_failed", "idle_nodes", "flags", "ts", "line", "json", "adapter", "seed", "build", "replays",
           "failure")

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    job_id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, session_id TEXT NOT NULL,
    campaign_id TEXT, mode TEXT, spec TEXT, archetype TEXT, app_slug TEXT, variant TEXT,
    tier TEXT, rep INTEGER, suite TEXT, suite_hash TEXT, host TEXT, overall TEXT,
    functional INTEGER, checks TEXT, swarm TEXT, cluster TEXT, diagnostics TEXT,
    wall_secs REAL, exit_code INTEGER, tasks_done INTEGER, tasks_failed INTEGER,
    idle_nodes TEXT, flags TEXT, ts REAL, line INTEGER, json TEXT NOT NULL, adapter TEXT, seed INTEGER,
    build TEXT, replays INTEGER, failure TEXT);
"""
INDEXES = """
CREATE INDEX IF NOT EXISTS records_session ON records(session_id);
CREATE INDEX IF NOT EXISTS records_campaign ON records(campaign_id);
CREATE INDEX IF NOT EXISTS records_variant ON records(variant);
CREATE INDEX IF NOT EXISTS records_spec ON records(spec);
CREATE INDEX IF NOT EXISTS records_suite_hash ON records(suite_hash);
CREATE INDEX IF NOT EXISTS records_ts ON records(ts);
CREATE INDEX IF NOT EXISTS records_kind_mode ON records(kind, mode);
"""

INSERT = (f"INSERT OR IGNORE INTO records ({', '.join(COLUMNS)}) "
          f"VALUES ({', '.join('?' * len(COLUMNS))})")


def connect(path: Path) -> sqlite3.Connection:
    """Open the index (WAL).  A damaged file raises ``sqlite3.DatabaseError`` for the caller to handle."""
    con = sqlite3.connect(path, timeout=30)
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error:
        con.close()
        raise
    return con


def init(con: sqlite3.Connection, path: Path) -> None:
    """Create the tables; refuse an index written by a newer swarmgym; an older one is emptied
    (its columns differ) and refilled from the jsonl by the caller's catch-up."""
    con.executescript(SCHEMA + INDEXES)
    row = con.execute("SELECT value FROM meta WHERE key='index_version'").fetchone()
    if row is not None and int(row[0]) < INDEX_VERSION:
        with con:
            con.execute("DROP TABLE records")
            con.execute("DELETE FROM meta")
        con.executescript(SCHEMA + INDEXES)
        row = None
    if row is None:
        con.execute("INSERT OR REPLACE INTO meta VALUES ('index_version', ?)", (str(INDEX_VERSION),))
        con.commit()
    elif int(row[0]) > INDEX_VERSION:
        raise LedgerError(f"{path}: index version {row[0]} is newer than this swarmgym understands "
                          f"({INDEX_VERSION}); upgrade swarmgym (or delete the file: it is rebuilt from the jsonl)")


def get_meta(con: sqlite3.Connection) -> tuple[int, int]:
    rows = dict(con.execute("SELECT key, value FROM meta WHERE key IN ('offset', 'lines')").fetchall())
    return int(rows.get("offset", 0)), int(rows.get("lines", 0))


def set_meta(con: sqlite3.Connection, offset: int, lines: int) -> None:
    con.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    [("offset", str(offset)), ("lines", str(lines))])


def row_of(rec: LedgerRecord, line: int, raw: str) -> tuple:
    dims = rec.dimensions
    return (
        rec.job_id, rec.kind, rec.session_id, rec.campaign_id, rec.mode, rec.spec, rec.archetype, rec.app_slug,
        rec.variant, rec.tier, rec.rep, rec.suite, rec.suite_hash, rec.host, rec.overall, int(rec.functional),
        dims.get("checks"), dims.get("swarm"), dims.get("cluster"), dims.get("diagnostics"),
        rec.wall_secs, rec.exit_code, rec.tasks_done, rec.tasks_failed,
        json.dumps(rec.idle_nodes), json.dumps(rec.flags, sort_keys=True), rec.ts, line, raw,
        rec.provenance.adapter or None, rec.provenance.seed, rec.provenance.build(), int(rec.provenance.replays_seed),
        rec.failure.model_dump_json() if rec.failure else None,
    )


def drop_indexes(con: sqlite3.Connection) -> None:
    """Before a bulk load into an empty table: building indexes afterwards is much faster."""
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type='index' AND name LIKE 'records_%'").fetchall():
        con.execute(f"DROP INDEX {name}")


def create_indexes(con: sqlite3.Connection) -> None:
    for stmt in INDEXES.strip().split(";"):
        if stmt.strip():
            con.execute(stmt)


def insert(con: sqlite3.Connection, rows: Iterable[tuple]) -> int:
    before = con.total_changes
    con.executemany(INSERT, rows)
    return con.total_changes - before
