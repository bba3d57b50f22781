"""The Celery worker command line that ``swarmgym worker`` runs in its place (``exec``): a variant host
(``<variant>@<host>`` on ``variant.<v>,host.<host>``) or the coordinator (``coordinator@<host>`` on
``coordinator``, the only ledger writer, and ``coordinator.ask``, the CLI's questions)."""
from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass

from swarmgym.core.names import check_name
from swarmgym.queue.routing import ASK_QUEUE, COORDINATOR_QUEUE, worker_name, worker_queues


@dataclass(frozen=True)
class CeleryWorker:
    """One Celery worker node: its name, the queues it consumes, its pool and how many tasks it runs at once."""

    name: str
    queues: tuple[str, ...]
    pool: str
    concurrency: int


def coordinator_worker(host: str, *, pool: str | None = None, threads: int = 1) -> CeleryWorker:
    """The coordinator on ``host``: a batching thread pool of ``threads`` by default (concurrent ``record_job``
    tasks share one group-commit ledger writer); any other pool runs one task at a time."""
    pool = pool or "threads"
    return CeleryWorker(f"coordinator@{check_name('host', host)}", (COORDINATOR_QUEUE, ASK_QUEUE), pool,
                        threads if pool == "threads" else 1)


def host_worker(variant: str, host: str, *, pool: str | None = None, concurrency: int = 1) -> CeleryWorker:
    """A host serving ``variant``: prefork by default (a swarm uses the whole machine: one job at a time)."""
    return CeleryWorker(worker_name(variant, host), tuple(worker_queues(variant, host)), pool or "prefork",
                        concurrency)


def worker_argv(w: CeleryWorker, *, loglevel: str = "INFO", python: str = sys.executable) -> list[str]:
    """``python -m celery -A swarmgym.queue.app worker …`` for ``w``: task events on, gossip and mingle off."""
    return [python, "-m", "celery", "-A", "swarmgym.queue.app", "worker", "-n", w.name, "-Q", ",".join(w.queues),
            "-c", str(w.concurrency), "-P", w.pool, "-E", "--loglevel", loglevel, "--without-gossip",
            "--without-mingle"]


def worker_env(base: Mapping[str, str], *, home: str, host: str, isolation: str | None = None) -> dict[str, str]:
    """The worker's environment: ``base`` with its home and host name, and the isolation backend when chosen."""
    box = {"SWARMGYM_SANDBOX_BACKEND": isolation} if isolation else {}
    return {**base, "SWARMGYM_HOME": home, "SWARMGYM_WORKER_HOST": host, **box}
