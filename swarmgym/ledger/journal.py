"""``ledger/sessions.jsonl``: the append-only source of truth, one LedgerRecord JSON per line.

Reading tolerates damage: a line cut by a crash mid-write (no trailing newline) is skipped with a
warning and never consumed, and any line that is not a valid record is skipped with a warning
naming its line.  A record with a newer ``schema_version`` than this swarmgym knows is a clear
:class:`LedgerError` (never silently dropped).  Appending starts on a fresh line when the file
ends in torn bytes, so a new record is never glued onto them.  Every append is fsynced.
"""
from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from pydantic import ValidationError

from swarmgym.core.errors import LedgerError
from swarmgym.models import LEDGER_SCHEMA_VERSION as SCHEMA_VERSION
from swarmgym.models import LedgerRecord

log = logging.getLogger("swarmgym.ledger")


@dataclass
class Chunk:
    """The whole lines of a jsonl read from byte ``start``; parse them with :func:`records`."""

    path: Path
    lines: list[bytes] = field(default_factory=list)
    first_line: int = 1
    end: int = 0          # byte offset just past the last whole line
    torn_tail: int = 0    # bytes after ``end`` without a newline

    @property
    def last_line(self) -> int:
        return self.first_line - 1 + len(self.lines)


def read_from(path: Path, start: int = 0, first_line: int = 1, *, warn_tail: bool = True) -> Chunk:
    try:
        with open(path, "rb") as fh:
            fh.seek(start)
            data = fh.read()
    except FileNotFoundError:
        return Chunk(path, first_line=1, end=0)
    cut = data.rfind(b"\n") + 1
    chunk = Chunk(path, data[:cut].split(b"\n")[:-1], first_line, start + cut, len(data) - cut)
    if chunk.torn_tail and warn_tail:
        log.warning("%s:%d: last line is incomplete (%d bytes without a newline: a crash mid-write?); "
                    "skipped", path, chunk.last_line + 1, chunk.torn_tail)
    return chunk


def records(chunk: Chunk) -> Iterator[tuple[int, LedgerRecord, str]]:
    """(line number, record, raw line) for every valid line; bad lines are warned about and skipped."""
    for n, raw in enumerate(chunk.lines, chunk.first_line):
        if not raw.strip():
            continue
        try:
            rec = LedgerRecord.model_validate_json(raw)
        except ValidationError as e:
            _check_version(chunk.path, n, raw)
            err = e.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "line"
            log.warning("%s:%d: not a valid ledger record (%s: %s; torn by a crash?); skipped",
                        chunk.path, n, where, err["msg"][:80])
            continue
        if rec.schema_version > SCHEMA_VERSION:
            _check_version(chunk.path, n, raw)
        yield n, rec, raw.decode("utf-8")


def _check_version(path: Path, n: int, raw: bytes) -> None:
    try:
        version = json.loads(raw).get("schema_version", 1)
    except (ValueError, AttributeError):
        return
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise LedgerError(f"{path}:{n}: schema_version {version} is newer than this swarmgym understands "
                          f"({SCHEMA_VERSION}); upgrade swarmgym to read this ledger")


def append(path: Path, line: str) -> tuple[int, int]:
    """Append one record line, fsynced.  Returns (file size after, lines written incl. a torn fix)."""
    return append_many(path, [line])


def append_many(path: Path, lines: list[str]) -> tuple[int, int]:
    """Append record lines in order with one write and one fsync (a batch).  Returns (file size after,
    lines written incl. a torn fix).  A crash mid-write leaves whole lines plus at most one torn tail,
    which readers skip and the next append terminates."""
    if any("\n" in line for line in lines):
        raise LedgerError(f"{path}: a ledger record must serialise to one line")
    with open(path, "ab") as fh:
        pos = fh.seek(0, os.SEEK_END)
        prefix = b""
        if pos:
            with open(path, "rb") as rd:
                rd.seek(pos - 1)
                if rd.read(1) != b"\n":
                    prefix = b"\n"  # terminate the torn bytes: they stay a (skipped) line of their own
        fh.write(prefix + b"".join(line.encode("utf-8") + b"\n" for line in lines))
        fh.flush()
        os.fsync(fh.fileno())
        return fh.tell(), len(lines) + bool(prefix)
