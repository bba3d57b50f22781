"""Orphan guard: ``python -m swarmgym.guard PID``.

The swarm runs in its own process group (so a timeout can kill it whole), which also means it
survives the death of the process that started it — a fleet worker, or ``swarmgym bench``.  The guard watches PID (the process running the
job), remembers every descendant it sees, and when PID dies (SIGKILL of the worker, hard time
limit) kills each remembered process's group.  A normal job end stops the guard with SIGTERM.
"""
from __future__ import annotations

import os
import signal
import sys
import time

import psutil


def kill_remembered(seen: dict[int, float]) -> int:
    killed = 0
    for pid, created in seen.items():
        try:
            p = psutil.Process(pid)
            if abs(p.create_time() - created) > 0.01:
                continue  # pid reused
            try:
                pgid = os.getpgid(pid)
                if pgid != os.getpgid(0):
                    os.killpg(pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            p.kill()
            killed += 1
        except psutil.Error:
            continue
    return killed


def watch(pid: int, interval: float = 0.2) -> int:
    me = os.getpid()
    seen: dict[int, float] = {}
    try:
        target = psutil.Process(pid)
    except psutil.Error:
        return 0
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
    return kill_remembered(seen)


def start(pid: int):
    """Start a guard process watching ``pid``; ``None`` if it could not be started. Stop it with
    ``terminate()`` when the work ends normally."""
    import subprocess

    try:
        return subprocess.Popen([sys.executable, "-m", "swarmgym.guard", str(pid)], stdin=subprocess.DEVNULL,
                                start_new_session=True, close_fds=True)
    except OSError:
        return None


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(int(argv[0]), float(argv[1]) if len(argv) > 1 else 0.2)


if __name__ == "__main__":
    main()
