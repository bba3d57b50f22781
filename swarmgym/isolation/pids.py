"""A pids cgroup per box: bounds fork storms (even for root) and kills every process at teardown.

``RLIMIT_NPROC`` is not enforced for root, and a user namespace does not change that (the box's
processes still belong to the caller's uid).  A cgroup's ``pids.max`` is enforced for everyone,
and its ``cgroup.procs`` lists every process of the box, ``setsid`` or not, markers or not.
Used when a pids controller is writable here (cgroup v1 ``/sys/fs/cgroup/pids`` or a v2
hierarchy with ``pids`` delegated); otherwise :func:`PidsCgroup.create` returns None and the
rlimit (enforced for non-root users) is the only bound.
"""
from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

CGROUP_FS = Path("/sys/fs/cgroup")
PARENT = "swarmgym"
_ROOT: list[Path | None] = []


def _v2_root() -> Path | None:
    ctl = CGROUP_FS / "cgroup.controllers"
    if not ctl.is_file() or "pids" not in ctl.read_text().split():
        return None
    parent = CGROUP_FS / PARENT
    parent.mkdir(exist_ok=True)
    sub = CGROUP_FS / "cgroup.subtree_control"
    if "pids" not in sub.read_text().split():
        sub.write_text("+pids")
    if "pids" not in (parent / "cgroup.subtree_control").read_text().split():
        (parent / "cgroup.subtree_control").write_text("+pids")
    return parent


def _v1_root() -> Path | None:
    base = CGROUP_FS / "pids"
    if not (base / "cgroup.procs").is_file():
        return None
    parent = base / PARENT
    parent.mkdir(exist_ok=True)
    return parent


def cgroup_root() -> Path | None:
    """Where box cgroups are made (probed once per process), or None if none is writable."""
    if not _ROOT:
        found = None
        for probe in (_v2_root, _v1_root):
            try:
                found = probe()
            except OSError:
                found = None
            if found is not None:
                break
        _ROOT.append(found)
    return _ROOT[0]


class PidsCgroup:
    """One box's cgroup: ``add`` (its first process, before it runs anything) or ``join`` (in a preexec),
    ``kill_all`` and ``close`` after."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls, max_procs: int) -> PidsCgroup | None:
        root = cgroup_root()
        if root is None:
            return None
        path = root / uuid.uuid4().hex[:16]
        try:
            path.mkdir()
            (path / "pids.max").write_text(str(max_procs))
        except OSError:
            return None
        return cls(path)

    def add(self, pid: int) -> None:
        """Move process ``pid`` into this cgroup (before it has started anything of its own)."""
        try:
            with open(self.path / "cgroup.procs", "w") as f:
                f.write(str(pid))
        except OSError:
            pass  # the cgroup vanished: the rlimits still apply, and the box's teardown still kills

    def join(self) -> None:
        """Move the calling process into this cgroup (runs in the child between fork and exec)."""
        self.add(os.getpid())

    def pids(self) -> list[int]:
        try:
            return [int(x) for x in (self.path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def kill_all(self, wait: float = 2.0) -> int:
        """SIGKILL every process still in the box until none is left (a fork storm cannot outrun it:
        the cgroup's pids.max bounds how many there are)."""
        killed, deadline = 0, time.monotonic() + wait
        while True:
            alive = self.pids()
            if not alive or time.monotonic() >= deadline:
                return killed
            for pid in alive:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.005)

    def close(self) -> None:
        self.kill_all()
        for _ in range(100):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.01)  # zombies not reaped yet
