"""``ledger/sessions.jsonl``: the append-only source of truth, one LedgerRecord JSON per line.

Reading tolerates damage: a line cut by a crash mid-write (no trailing newline) is skipped with a
warning and never consumed, and any unparseable line is skipped with a warning naming its line.
Appending starts on a fresh line when the file ends in torn bytes, so a new record is never glued
onto them.  Every append is flushed and fsynced before it counts.
"""
from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swarmgym.errors import LedgerError
from swarmgym.models import SCHEMA_VERSION

log = logging.getLogger("swarmgym.ledger")


@dataclass
class Chunk:
    """Whole lines read from ``start``: parsed records plus where the next read begins."""

    records: list[tuple[int, dict[str, Any], str]] = field(default_factory=list)  # (line_no, obj, raw)
    end: int = 0          # byte offset just past the last whole line
    lines: int = 0        # line count at ``end``
    torn_tail: int = 0    # bytes after ``end`` without a newline


def read_from(path: Path, start: int = 0, first_line: int = 1, *, warn_tail: bool = True) -> Chunk:
    """Parse every whole line of ``path`` from byte ``start``; warn about and skip bad ones."""
    try:
        with open(path, "rb") as fh:
            fh.seek(start)
            data = fh.read()
    except FileNotFoundError:
        return Chunk(end=0, lines=0)
    cut = data.rfind(b"\n") + 1
    out = Chunk(end=start + cut, lines=first_line - 1, torn_tail=len(data) - cut)
    line_no = first_line - 1
    for raw in data[:cut].split(b"\n")[:-1]:
        line_no += 1
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
            if not isinstance(obj, dict):
                raise ValueError("not a JSON object")
        except ValueError as e:
            log.warning("%s:%d: not a valid ledger record (%s; torn by a crash?); skipped",
                        path, line_no, str(e)[:80])
            continue
        version = obj.get("schema_version", 1)
        if isinstance(version, int) and version > SCHEMA_VERSION:
            raise LedgerError(f"{path}:{line_no}: schema_version {version} is newer than this swarmgym "
                              f"understands ({SCHEMA_VERSION}); upgrade swarmgym to read this ledger")
        out.records.append((line_no, obj, raw.decode("utf-8", "replace")))
    out.lines = line_no
    if out.torn_tail and warn_tail:
        log.warning("%s:%d: last line is incomplete (%d bytes without a newline: a crash mid-write?); "
                    "skipped", path, line_no + 1, out.torn_tail)
    return out


def append(path: Path, line: str) -> tuple[int, int]:
    """Append one record line, fsynced.  Returns (file size after, lines written incl. a torn fix)."""
    if "\n" in line:
        raise LedgerError(f"{path}: a ledger record must serialise to one line")
    with open(path, "ab") as fh:
        fh.seek(0, os.SEEK_END)
        pos = fh.tell()
        prefix = b""
        if pos:
            with open(path, "rb") as rd:
                rd.seek(pos - 1)
                if rd.read(1) != b"\n":
                    prefix = b"\n"  # terminate the torn bytes: they stay a (skipped) line of their own
        fh.write(prefix + line.encode("utf-8") + b"\n")
        fh.flush()
        os.fsync(fh.fileno())
        return fh.tell(), 1 + bool(prefix)
