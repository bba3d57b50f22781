"""A cgroup per box: a pids cap (fork storms, even for root), a memory cap (RAM + tmpfs pages), and
the list of every process of the box for the kill at teardown.

``RLIMIT_NPROC`` is not enforced for root, and a user namespace does not change that (the box's
processes still belong to the caller's uid).  A cgroup's ``pids.max`` is enforced for everyone,
and its ``cgroup.procs`` lists every process of the box, ``setsid`` or not, markers or not.
The memory controller charges every page the box touches — its processes' RAM and the pages of
its tmpfs (``/tmp``, ``/dev/shm``) — to the box: past ``ram_mb`` the kernel reclaims, then kills a
process of the box (never one outside it); :meth:`BoxCgroup.oom_kills` counts those kills so the
verdict can say "exceeded its memory cap" instead of a bare SIGKILL.

cgroup v1 (``/sys/fs/cgroup/{pids,memory}/swarmgym/<id>``, ``memory.limit_in_bytes`` and
``memory.memsw.limit_in_bytes`` where swap accounting exists) and v2 (one
``/sys/fs/cgroup/swarmgym/<id>`` with ``pids.max``, ``memory.max``, ``memory.swap.max = 0``).
A controller that is not writable here (a non-root user without delegation) is skipped: the
rlimits (enforced for non-root users) are then the only bound, and :meth:`BoxCgroup.create` returns
None when neither controller is available.
"""
from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

CGROUP_FS = Path("/sys/fs/cgroup")
PARENT = "swarmgym"
CONTROLLERS = ("pids", "memory")
_ROOTS: dict[str, Path | None] = {}


def _v2_root(controller: str) -> Path | None:
    ctl = CGROUP_FS / "cgroup.controllers"
    if not ctl.is_file() or controller not in ctl.read_text().split():
        return None
    parent = CGROUP_FS / PARENT
    parent.mkdir(exist_ok=True)
    for where in (CGROUP_FS, parent):
        sub = where / "cgroup.subtree_control"
        if controller not in sub.read_text().split():
            sub.write_text("+" + controller)
    return parent


def _v1_root(controller: str) -> Path | None:
    base = CGROUP_FS / controller
    if not (base / "cgroup.procs").is_file():
        return None
    parent = base / PARENT
    parent.mkdir(exist_ok=True)
    return parent


def cgroup_root(controller: str) -> Path | None:
    """Where box cgroups of ``controller`` are made (probed once per process), or None if not writable."""
    if controller not in _ROOTS:
        found = None
        for probe in (_v2_root, _v1_root):
            try:
                found = probe(controller)
            except OSError:
                found = None
            if found is not None:
                break
        _ROOTS[controller] = found
    return _ROOTS[controller]


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError:
        return False


class BoxCgroup:
    """One box's cgroup(s): ``add`` (its first process, before it runs anything) or ``join`` (in a
    preexec), ``oom_kills`` after it ran, ``kill_all`` and ``close`` at teardown."""

    def __init__(self, dirs: dict[str, Path], ram_mb: int | None = None) -> None:
        self.dirs = dirs  # controller -> its cgroup dir (one shared dir on v2)
        self.ram_mb = ram_mb if "memory" in dirs else None

    @property
    def path(self) -> Path:
        return self.dirs.get("pids") or next(iter(self.dirs.values()))

    @classmethod
    def create(cls, max_procs: int, ram_mb: int | None = None) -> BoxCgroup | None:
        name = uuid.uuid4().hex[:16]
        dirs: dict[str, Path] = {}
        for controller in CONTROLLERS:
            if controller == "memory" and ram_mb is None:
                continue
            root = cgroup_root(controller)
            if root is None:
                continue
            path = root / name
            try:
                path.mkdir(exist_ok=True)
            except OSError:
                continue
            if controller == "pids":
                ok = _write(path / "pids.max", str(max_procs))
            else:
                ok = _set_memory(path, int(ram_mb or 0) << 20)
            if ok:
                dirs[controller] = path
            elif path not in dirs.values():  # v2: one dir for both controllers
                _rmdir(path)
        return cls(dirs, ram_mb) if dirs else None

    def add(self, pid: int) -> None:
        """Move process ``pid`` into this box's cgroups (before it has started anything of its own)."""
        for path in dict.fromkeys(self.dirs.values()):
            _write(path / "cgroup.procs", str(pid))  # a vanished cgroup: the rlimits still apply

    def join(self) -> None:
        """Move the calling process into this box's cgroups (runs in the child between fork and exec)."""
        self.add(os.getpid())

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path in dict.fromkeys(self.dirs.values()):
            try:
                found.update(int(x) for x in (path / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                continue
        return sorted(found)

    def oom_kills(self) -> int:
        """How many processes of the box the kernel killed at its memory cap (0 without one)."""
        path = self.dirs.get("memory")
        if path is None:
            return 0
        for name in ("memory.events", "memory.oom_control"):  # v2, v1 (kernel >= 4.13 counts oom_kill)
            try:
                fields = dict(line.split() for line in (path / name).read_text().splitlines() if " " in line)
            except (OSError, ValueError):
                continue
            if "oom_kill" in fields:
                return int(fields["oom_kill"])
        return 0

    def kill_all(self, wait: float = 2.0) -> int:
        """SIGKILL every process still in the box until none is left (a fork storm cannot outrun it:
        the cgroup's pids.max bounds how many there are)."""
        killed, deadline, pause = 0, time.monotonic() + wait, 0.0002
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
            time.sleep(pause)  # processes the namespace's end already killed leave within a millisecond
            pause = min(pause * 2, 0.005)

    def close(self) -> None:
        self.kill_all()
        for path in dict.fromkeys(self.dirs.values()):
            _rmdir(path)


def _set_memory(path: Path, limit: int) -> bool:
    if (path / "memory.max").exists():  # v2: no swap either, so the cap is the box's whole footprint
        _write(path / "memory.swap.max", "0")
        return _write(path / "memory.max", str(limit))
    if not _write(path / "memory.limit_in_bytes", str(limit)):
        return False
    if (path / "memory.memsw.limit_in_bytes").exists():  # v1 with swap accounting: RAM + swap capped alike
        _write(path / "memory.memsw.limit_in_bytes", str(limit))
    return True


def _rmdir(path: Path) -> None:
    pause, deadline = 0.0002, time.monotonic() + 1.0
    while True:
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() >= deadline:
                return
            time.sleep(pause)  # zombies not reaped yet: gone within a millisecond or two
            pause = min(pause * 2, 0.01)
