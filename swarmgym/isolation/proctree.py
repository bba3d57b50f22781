"""Killing processes: the one place swarmgym sends SIGKILL to a process, its group or its tree.

Swarms and checks run in their own session (process group) so they can be killed whole; descendants
that left the group (``setsid``) are found with psutil.  Every kill here is quiet about processes
that are already gone or not ours to kill.
"""
from __future__ import annotations

import os
import signal
import time
from typing import Iterable

import psutil


def kill_group(pgid: int) -> None:
    """SIGKILL every process of group ``pgid``; quiet if it is already gone."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_with_group(p: psutil.Process) -> bool:
    """SIGKILL ``p`` and its whole process group — unless that group is this process's own.
    False if ``p`` was already gone (or not ours)."""
    try:
        pgid = os.getpgid(p.pid)
        if pgid != os.getpgid(0):
            kill_group(pgid)
        p.kill()
        return True
    except (psutil.Error, OSError):
        return False


def descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def kill_tree(pid: int, known: Iterable[psutil.Process] = (), wait: float = 2.0) -> None:
    """SIGKILL the process group of ``pid`` and every known or current descendant (even in other
    sessions), then wait up to ``wait`` seconds until none of them is alive."""
    procs = list(known) + descendants(pid)
    kill_group(pid)
    for p in procs:
        try:
            p.kill()
        except psutil.Error:
            pass
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and (any(alive(p) for p in procs) or group_alive(pid)):
        time.sleep(0.02)


def group_alive(pgid: int) -> bool:
    """Whether any live (non-zombie) process is still in process group ``pgid``."""
    for p in psutil.process_iter():
        try:
            if os.getpgid(p.pid) == pgid and alive(p):
                return True
        except (OSError, psutil.Error):
            continue
    return False


def alive(p: psutil.Process) -> bool:
    """Running and not a zombie (an orphan's zombie is for init to reap, it holds no resources)."""
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
