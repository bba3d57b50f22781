"""Group commit for the one ledger writer: many callers, one batch per write.

The coordinator runs its ``record_job`` tasks on a few threads; each thread hands its record to
:meth:`GroupWriter.write` and blocks until the record is durable.  One writer thread takes
whatever is waiting (up to ``max_batch``) and writes it with :meth:`Ledger.record_many`: one
lock, one jsonl append + fsync, one SQLite transaction.  Under load, batches grow by themselves;
alone, a record waits for nobody (no timer).  A failed batch raises in every caller of that
batch, so each task retries (and is acknowledged only once its record is written).
"""
from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Sequence
from concurrent.futures import Future

from swarmgym.models import LedgerRecord

log = logging.getLogger("swarmgym.ledger")


class GroupWriter:
    def __init__(self, ledger, max_batch: int = 256) -> None:
        self.ledger = ledger
        self.max_batch = max_batch
        self._q: queue.Queue[tuple[LedgerRecord, Future]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.batches = 0
        self.records = 0

    def _ensure(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="ledger-writer", daemon=True)
                self._thread.start()

    def submit(self, rec: LedgerRecord) -> Future:
        fut: Future = Future()
        self._q.put((rec, fut))
        self._ensure()
        return fut

    def write(self, rec: LedgerRecord, timeout: float | None = 120) -> bool:
        """Write ``rec`` (in a batch with whatever else is waiting); True if it was new."""
        return bool(self.submit(rec).result(timeout))

    def write_many(self, recs: Sequence[LedgerRecord], timeout: float | None = 120) -> list[bool]:
        futs = [self.submit(r) for r in recs]
        return [bool(f.result(timeout)) for f in futs]

    def _run(self) -> None:
        while True:
            batch = [self._q.get()]
            while len(batch) < self.max_batch:
                try:
                    batch.append(self._q.get_nowait())
                except queue.Empty:
                    break
            try:
                done = self.ledger.record_many([r for r, _ in batch])
            except BaseException as e:  # every caller of this batch sees the error and retries
                for _, f in batch:
                    f.set_exception(e)
                continue
            self.batches += 1
            self.records += len(batch)
            for (_, f), new in zip(batch, done):
                f.set_result(new)
