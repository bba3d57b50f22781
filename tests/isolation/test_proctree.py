"""Killing a process tree: the group, and descendants that left it."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import psutil

from swarmgym.isolation.proctree import alive, kill_tree, kill_with_group

# a shell in its own session that starts one child in the group and one that escapes with setsid
SCRIPT = "sleep 300 & setsid sleep 301 & wait"


def _escaped(kids: list[psutil.Process], pgid: int) -> bool:
    try:
        return any(os.getpgid(k.pid) != pgid for k in kids)
    except ProcessLookupError:
        return False


def _wait_children(pid: int, n: int) -> list[psutil.Process]:
    """``n`` descendants, one of which has already left the group (setsid runs a moment after fork)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        kids = psutil.Process(pid).children(recursive=True)
        if len(kids) >= n and _escaped(kids, pid):
            return kids
        time.sleep(0.02)
    raise AssertionError("children did not start, or none left the group")


def test_kill_tree_kills_the_group_and_a_descendant_that_left_it():
    proc = subprocess.Popen(["bash", "-c", SCRIPT], start_new_session=True)
    kids = _wait_children(proc.pid, 2)  # one really left the group
    kill_tree(proc.pid, kids)
    proc.wait(timeout=5)
    assert not any(alive(k) for k in kids)


def test_kill_with_group_spares_the_callers_own_group():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])  # our own group
    try:
        assert kill_with_group(psutil.Process(child.pid))
        assert child.wait(timeout=5) == -9
        assert alive(psutil.Process(os.getpid()))  # we were not in the blast radius
    finally:
        child.kill()
