"""Nothing a job starts outlives it on the host: an orphan guard watches the process running the job,
and whatever the job left below it is killed when it ends (or when the worker shuts down)."""
from __future__ import annotations

import logging
import subprocess

from swarmgym.isolation import guard as swarm_guard
from swarmgym.isolation.proctree import descendants, kill_with_group

log = logging.getLogger(__name__)


def start_guard(pid: int) -> subprocess.Popen | None:
    """An orphan guard watching ``pid`` (None, with a warning, when it could not start)."""
    guard = swarm_guard.start(pid)
    if guard is None:
        log.warning("orphan guard not started")
    return guard


def stop_guard(guard: subprocess.Popen | None) -> None:
    if guard is not None:
        guard.terminate()
        guard.wait(timeout=5)


def sweep_descendants(root_pid: int, exclude: set[int]) -> int:
    """Kill what the job left running below ``root_pid``: each foreign process group, then the process."""
    return sum(kill_with_group(p) for p in descendants(root_pid) if p.pid not in exclude)
