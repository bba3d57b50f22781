"""The writer lock: ``ledger/.lock``, an ``fcntl.flock`` held while the ledger is written.

By design exactly one process writes a ledger (the coordinator, or the local process in
``swarmgym bench``).  Every write (append, catch-up, rebuild) holds this lock for a few
milliseconds, so an accidental second writer waits briefly and then fails with a clear
:class:`LedgerError` naming the holder's pid, instead of interleaving bytes in the jsonl.
Readers never take it: SQLite in WAL mode serves them while a write is in progress.
"""
from __future__ import annotations

import errno
import fcntl
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from swarmgym.core.errors import LedgerError

_THREAD_LOCK = threading.RLock()  # flock is per open file: serialise threads of one process too


def _reset_after_fork() -> None:
    """A forked child (a prefork worker, a test's reader) starts with a free lock, whatever the parent's threads held."""
    global _THREAD_LOCK
    _THREAD_LOCK = threading.RLock()


os.register_at_fork(after_in_child=_reset_after_fork)


@contextmanager
def writer_lock(path: Path, timeout: float = 10.0) -> Iterator[None]:
    with _THREAD_LOCK:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as e:
                    if e.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                        raise LedgerError(f"{path}: cannot lock the ledger ({e.strerror})") from None
                    if time.monotonic() >= deadline:
                        holder = _holder(path)
                        raise LedgerError(
                            f"{path}: the ledger is being written by another process{holder} for more than "
                            f"{timeout:g}s; only one process may write a ledger (the coordinator or one "
                            "`swarmgym bench`)") from None
                    time.sleep(0.02)
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the flock


def _holder(path: Path) -> str:
    """The pid on the lock file's first line (a holder that wrote without truncating leaves an older tail after it)."""
    try:
        first = path.read_text().split("\n", 1)[0].strip()
    except OSError:
        return ""
    return f" (pid {first})" if first.isdigit() else ""
