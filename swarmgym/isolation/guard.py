"""Orphan guard: ``python -m swarmgym.isolation.guard PID``.

The swarm runs in its own process group (so a timeout can kill it whole), which also means it
survives the death of the process that started it — a fleet worker, or ``swarmgym bench``.  The
guard watches PID, remembers every descendant it sees, and when PID dies (SIGKILL, SIGTERM, a hard
time limit) kills each remembered process's group, and every process whose env carries
``SWARMGYM_OWNER_PID=PID`` (set by the adapter runner), so a swarm started between two polls is not
missed.  A normal end stops the guard with SIGTERM.  The guard starts with the scrubbed environment
(:func:`swarmgym.isolation.sandbox.helper_env`): its ``/proc/<pid>/environ`` holds no secret.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil

from swarmgym.isolation.proctree import kill_with_group
from swarmgym.isolation.sandbox import helper_env

OWNER = "SWARMGYM_OWNER_PID"  # set in every swarm's env by the adapter runner: the pid that started it


def kill_remembered(seen: dict[int, float]) -> int:
    killed = 0
    for pid, created in seen.items():
        try:
            p = psutil.Process(pid)
            if abs(p.create_time() - created) > 0.01:
                continue  # pid reused
            killed += kill_with_group(p)
        except psutil.Error:
            continue
    return killed


def kill_owned(pid: int) -> int:
    """Kill every process (and its group) whose env says process ``pid`` started it (see :data:`OWNER`).

    This catches a swarm started between two polls, and one started before the guard was up.
    """
    killed, tag = 0, str(pid)
    for p in psutil.process_iter():
        try:
            if p.pid == os.getpid() or p.environ().get(OWNER) != tag:
                continue
        except (psutil.Error, OSError):
            continue
        killed += kill_with_group(p)
    return killed


def watch(pid: int, interval: float = 0.2) -> int:
    me = os.getpid()
    seen: dict[int, float] = {}
    try:
        target = psutil.Process(pid)
    except psutil.Error:
        return kill_owned(pid)
    while True:
        try:
            if not target.is_running() or target.status() == psutil.STATUS_ZOMBIE:
                break
            for p in target.children(recursive=True):
                if p.pid != me and p.pid not in seen:
                    try:
                        seen[p.pid] = p.create_time()
                    except psutil.Error:
                        pass
        except psutil.Error:
            break
        time.sleep(interval)
    return kill_remembered(seen) + kill_owned(pid)


def start(pid: int):
    """Start a guard process watching ``pid``; ``None`` if it could not be started. Stop it with
    ``terminate()`` when the work ends normally."""
    try:
        return subprocess.Popen([sys.executable, "-m", "swarmgym.isolation.guard", str(pid)], stdin=subprocess.DEVNULL,
                                start_new_session=True, close_fds=True, env=helper_env())
    except OSError:
        return None


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(int(argv[0]), float(argv[1]) if len(argv) > 1 else 0.2)


if __name__ == "__main__":
    main()
