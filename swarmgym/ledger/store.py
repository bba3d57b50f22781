"""The :class:`Ledger`: every finished job, once, in ``ledger/``.

``sessions.jsonl`` is the source of truth (append-only, fsynced); ``ledger.sqlite`` is an index
rebuilt from it whenever it is missing, damaged or behind.  ``record`` is idempotent by job_id:
writing a job_id that is already there changes nothing and returns False.  That is what makes
duplicate Celery deliveries harmless, and it holds for campaign records (job_id
``campaign:<cid>``) too: the first one written stands.

Exactly one process is meant to write a ledger; see :mod:`swarmgym.ledger.lock`.
"""
from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

from swarmgym.core.errors import LedgerError
from swarmgym.ledger import index, journal
from swarmgym.ledger.lock import writer_lock
from swarmgym.models import LedgerRecord

log = logging.getLogger("swarmgym.ledger")


class Ledger:
    def __init__(self, ledger_dir: str | Path, *, lock_timeout: float = 10.0) -> None:
        self.dir = Path(ledger_dir)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise LedgerError(f"{self.dir}: cannot create the ledger folder ({e.strerror})") from None
        self.jsonl = self.dir / "sessions.jsonl"
        self.db = self.dir / "ledger.sqlite"
        self.lock_path = self.dir / ".lock"
        self.lock_timeout = lock_timeout
        self._tail_warned: int | None = None  # offset of a torn tail already reported
        self._open()

    # --- opening and keeping the index current ---------------------------------------

    def _open(self) -> None:
        if self.db.exists():
            try:
                with closing(index.connect(self.db)) as con:
                    index.init(con, self.db)
                    offset, _ = index.get_meta(con)
                if offset == self._size():
                    return  # index is current: nothing to read
            except sqlite3.OperationalError as e:  # full, read-only, locked, I/O: passing, not damage
                raise LedgerError(f"{self.db}: cannot open the ledger index ({e})") from None
            except sqlite3.DatabaseError as e:
                log.warning("%s: damaged index (%s); rebuilding it from %s", self.db, e, self.jsonl.name)
                with self._locked():
                    self._drop_index()
        with self._locked(), self._con() as con:
            self._catch_up(con)

    def _size(self) -> int:
        try:
            return self.jsonl.stat().st_size
        except FileNotFoundError:
            return 0

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with writer_lock(self.lock_path, self.lock_timeout):
            yield

    @contextmanager
    def _con(self) -> Iterator[sqlite3.Connection]:
        try:
            con = index.connect(self.db)
        except sqlite3.DatabaseError as e:
            raise LedgerError(f"{self.db}: cannot open the ledger index ({e}); "
                              "try `swarmgym ledger rebuild`") from None
        try:
            index.init(con, self.db)
            yield con
        finally:
            con.close()

    def _drop_index(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.db}{suffix}").unlink(missing_ok=True)

    def _catch_up(self, con: sqlite3.Connection) -> None:
        """Index the jsonl lines appended since the index last read it (caller holds the lock)."""
        offset, lines = index.get_meta(con)
        if self._size() < offset:
            log.warning("%s is shorter than the index remembers; rebuilding the index", self.jsonl)
            offset, lines = 0, 0
            with con:
                con.execute("DELETE FROM records")
        chunk = journal.read_from(self.jsonl, offset, lines + 1, warn_tail=self._tail_warned != offset)
        if chunk.torn_tail:
            self._tail_warned = chunk.end
        bulk = offset == 0 and len(chunk.lines) > 1000
        rows = (index.row_of(rec, n, raw) for n, rec, raw in journal.records(chunk))
        with con:
            if bulk:
                index.drop_indexes(con)
            index.insert(con, rows)
            if bulk:
                index.create_indexes(con)
            index.set_meta(con, chunk.end, chunk.last_line)

    # --- writing ---------------------------------------------------------------------

    def record(self, rec: LedgerRecord) -> bool:
        """Append ``rec`` unless its job_id is already in the ledger.  True if it was written."""
        return self.record_many([rec])[0]

    def record_many(self, recs: Sequence[LedgerRecord]) -> list[bool]:
        """Append a batch in order: one lock, one jsonl write + fsync, one SQLite transaction.

        Idempotent per job_id like :meth:`record` (a job_id already known, or repeated within the
        batch, is skipped: False at its position).  The jsonl is written first; if the process dies
        before the SQLite commit, the next open indexes the appended lines, so both agree."""
        if not recs:
            return []
        with self._locked(), self._con() as con:
            self._catch_up(con)
            ids = list({r.job_id for r in recs})
            known: set[str] = set()
            for i in range(0, len(ids), 500):
                chunk = ids[i:i + 500]
                known.update(row[0] for row in con.execute(
                    f"SELECT job_id FROM records WHERE job_id IN ({','.join('?' * len(chunk))})", chunk))
            out, todo = [], []
            for rec in recs:
                fresh = rec.job_id not in known
                out.append(fresh)
                if fresh:
                    known.add(rec.job_id)
                    todo.append((rec, rec.model_dump_json()))
            if not todo:
                return out
            _, lines = index.get_meta(con)
            try:
                size, written = journal.append_many(self.jsonl, [line for _, line in todo])
            except OSError as e:
                raise LedgerError(f"{self.jsonl}: cannot append ({e.strerror})") from None
            first = lines + written - len(todo) + 1  # a torn-tail fix takes the first line number
            with con:
                index.insert(con, [index.row_of(rec, first + i, line) for i, (rec, line) in enumerate(todo)])
                index.set_meta(con, size, lines + written)
            return out

    def rebuild(self) -> int:
        """Recreate the SQLite index from the jsonl; returns the number of records indexed."""
        with self._locked():
            try:
                with closing(index.connect(self.db)) as con, con:
                    index.init(con, self.db)
                    con.execute("DELETE FROM records")
                    index.set_meta(con, 0, 0)
            except sqlite3.DatabaseError as e:
                log.warning("%s: damaged index (%s); recreating it", self.db, e)
                self._drop_index()
            with self._con() as con:
                self._catch_up(con)
                return con.execute("SELECT COUNT(*) FROM records").fetchone()[0]

    # --- reading ---------------------------------------------------------------------

    def _query(self, sql: str, args: Sequence = ()) -> list[tuple]:
        try:
            with closing(index.connect(self.db)) as con:
                return con.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as e:
            raise LedgerError(f"{self.db}: cannot read the ledger index ({e}); try `swarmgym ledger rebuild`") from None

    def _records(self, where: str, args: Sequence, tail: str = "ORDER BY line") -> list[LedgerRecord]:
        rows = self._query(f"SELECT json FROM records WHERE {where} {tail}", args)
        return [LedgerRecord.model_validate_json(r[0]) for r in rows]

    def records(self, kind: str | None = "session", campaign_id: str | None = None,
                variant: str | None = None, mode: str | None = None) -> list[LedgerRecord]:
        """Records in the order they were written, filtered by the given fields (None = any)."""
        conds, args = ["1=1"], []
        for col, val in (("kind", kind), ("campaign_id", campaign_id), ("variant", variant), ("mode", mode)):
            if val is not None:
                conds.append(f"{col} = ?")
                args.append(val)
        return self._records(" AND ".join(conds), args)

    def records_since(self, ts: float, kind: str | None = "campaign") -> list[LedgerRecord]:
        """Records written at or after unix time ``ts`` (their ``ts``), in the order written."""
        where, args = ("ts >= ? AND kind = ?", [ts, kind]) if kind else ("ts >= ?", [ts])
        return self._records(where, args)

    def failures(self, campaign_id: str, limit: int = 50) -> list[LedgerRecord]:
        """A campaign's errored, could-not-run (infra) and failed job records (the first ``limit``), for ``status``."""
        return self._records("campaign_id = ? AND kind = 'session' AND overall IN ('error', 'infra', 'fail')",
                             (campaign_id, max(1, int(limit))), "ORDER BY line LIMIT ?")

    def has_job(self, job_id: str) -> bool:
        return bool(self._query("SELECT 1 FROM records WHERE job_id = ?", (job_id,)))

    def job_ids(self, campaign_id: str, kind: str | None = "session") -> list[str]:
        sql = "SELECT job_id FROM records WHERE campaign_id = ?" + (" AND kind = ?" if kind else "")
        return [r[0] for r in self._query(sql + " ORDER BY line", (campaign_id, kind) if kind else (campaign_id,))]

    def page(self, campaign_id: str, columns: Sequence[str] = ("job_id", "host", "overall", "wall_secs"), *,
             after_line: int = 0, limit: int = 500, kind: str = "session") -> list[tuple]:
        """One page of a campaign's rows, ``(line, *columns)`` in the order written: keyset paging on the
        line number, raw index columns (no JSON parsed), so each page costs the same however deep."""
        bad = [c for c in columns if c not in index.COLUMNS]
        if bad:
            raise LedgerError(f"unknown ledger column {bad[0]!r}; known: {', '.join(index.COLUMNS)}")
        return self._query(f"SELECT line, {', '.join(columns)} FROM records WHERE campaign_id = ? AND kind = ? "
                           f"AND line > ? ORDER BY line LIMIT {max(1, int(limit))}", (campaign_id, kind, after_line))

    def counts(self, campaign_id: str, kind: str = "session") -> dict[str, int]:
        """overall -> number of records of a campaign (an indexed aggregate, no JSON parsed)."""
        rows = self._query("SELECT overall, COUNT(*) FROM records WHERE campaign_id = ? AND kind = ? GROUP BY overall",
                           (campaign_id, kind))
        return {o or "": n for o, n in rows}

    def overall_by_job(self, campaign_id: str, kind: str = "session") -> dict[str, str]:
        rows = self._query("SELECT job_id, overall FROM records WHERE campaign_id = ? AND kind = ?", (campaign_id, kind))
        return {j: o or "" for j, o in rows}

    def last(self, n: int = 30, kind: str | None = "session") -> list[LedgerRecord]:
        """The last ``n`` records written, oldest first."""
        where, args = ("kind = ?", [kind]) if kind else ("1=1", [])
        recs = self._records(where, args + [max(n, 0)], "ORDER BY line DESC LIMIT ?")
        return recs[::-1]

    def find(self, key: str) -> list[LedgerRecord]:
        """Records whose job_id or session_id is ``key``."""
        return self._records("job_id = ? OR session_id = ?", (key, key))

    def count(self, kind: str | None = None) -> int:
        if kind is None:
            return self._query("SELECT COUNT(*) FROM records")[0][0]
        return self._query("SELECT COUNT(*) FROM records WHERE kind = ?", (kind,))[0][0]

    def columns(self, columns: Sequence[str], *, kind: str = "session", mode: str | None = None) -> list[tuple]:
        """Raw index columns (no JSON parsing): the fast path for reports over many records."""
        bad = [c for c in columns if c not in index.COLUMNS]
        if bad:
            raise LedgerError(f"unknown ledger column {bad[0]!r}; known: {', '.join(index.COLUMNS)}")
        sql = f"SELECT {', '.join(columns)} FROM records WHERE kind = ?"
        args: list = [kind]
        if mode is not None:
            sql += " AND mode = ?"
            args.append(mode)
        return self._query(sql + " ORDER BY ts, line", args)
