"""Committed state: one SQLite table in the --db file."""
from __future__ import annotations

import sqlite3


class Storage:
    def __init__(self, path: str):
        self.conn = sqlite3.connect(path)
        self.conn.execute("CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self.conn.commit()

    def get(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM kv WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def keys(self) -> set[str]:
        return {k for (k,) in self.conn.execute("SELECT key FROM kv")}

    def apply(self, changes: dict[str, str | None]) -> None:
        """Write a set of changes atomically; None deletes the key."""
        with self.conn:
            for key, value in changes.items():
                if value is None:
                    self.conn.execute("DELETE FROM kv WHERE key = ?", (key,))
                else:
                    self.conn.execute("INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)", (key, value))

    def close(self) -> None:
        self.conn.close()
