"""The coordinator's ledger and its one group-commit writer, one of each per home and process.

``record_job`` threads share the writer (one jsonl append + fsync and one SQLite transaction per batch);
finalize, reconcile and the coordinator's answers read the same :class:`~swarmgym.ledger.Ledger`.
"""
from __future__ import annotations

import threading

from swarmgym.ledger import Ledger
from swarmgym.ledger.batch import GroupWriter

_LEDGERS: dict[str, Ledger] = {}
_WRITERS: dict[str, GroupWriter] = {}
_MAKE = threading.Lock()


def ledger_for(cfg) -> Ledger:
    key = str(cfg.ledger_dir)
    with _MAKE:
        if key not in _LEDGERS:
            _LEDGERS[key] = Ledger(cfg.ledger_dir)
        return _LEDGERS[key]


def writer_for(cfg) -> GroupWriter:
    """The one group-commit writer of this process's ledger (record_job threads share it)."""
    ledger = ledger_for(cfg)
    with _MAKE:
        key = str(cfg.ledger_dir)
        if key not in _WRITERS:
            _WRITERS[key] = GroupWriter(ledger)
        return _WRITERS[key]
