"""A swarm's bubblewrap box: its own network with a forwarder to the model endpoints, its own disk.

Around the box :mod:`swarmgym.isolation.bwrap` builds from the policy, :class:`SwarmBox` adds what
only a swarm needs while it runs:

- **network**: the box has its own network namespace (its loopback only: no broker, no other job's
  box — abstract Unix sockets are per namespace too —, no LAN); the first process of the box
  (:mod:`swarmgym.isolation.boxinit`) listens where the swarm expects each model endpoint and relays to
  the host's :class:`~swarmgym.isolation.forward.Forwarder` over a Unix socket in ``/run/swarmgym/net``
  (read-only: the box can connect, never write there);
  the box's ``/etc/hosts`` names the endpoints' hosts;
- **disk**: each writable folder (the workspace, goose's per-job root) is a tmpfs of
  ``policy.disk_mb`` inside the box, filled with the folder's previous content when the box starts;
  its pages count in the box's memory cgroup, and a write past it fails with ``ENOSPC`` inside the
  box — the host's disk is not touched while the swarm runs.  When the swarm ends (or at the
  deadline, after ``stop``) the host copies each folder out (:mod:`swarmgym.isolation.copyout`) and
  names a folder the swarm filled: ``workspace over its N MB budget``.
"""
from __future__ import annotations

import functools
import json
import os
import select
import shutil
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from swarmgym.isolation.allowlist import system_dirs
from swarmgym.isolation.bwrap import NET_MOUNT, SEED_MOUNT
from swarmgym.isolation.copyout import MAX_ENTRIES, copy_out, replace_tree
from swarmgym.isolation.endpoints import hosts_file
from swarmgym.isolation.forward import Forwarder, Traffic
from swarmgym.isolation.policy import MB, Policy

STOP_GRACE = 5.0  # seconds the box's init gets to stop the swarm at the deadline


def seed_path(n: int) -> str:
    """Where the box sees writable folder ``n``'s previous content (read-only) while it copies it in."""
    return f"{SEED_MOUNT}/{n}"


def disk_dirs(policy: Policy) -> list[Path]:
    """The writable folders of ``policy`` that get a tmpfs of their own (the outermost ones)."""
    return [p for p, kind in policy.rules(system_dirs()) if kind == "rw"]


@functools.lru_cache(maxsize=1)
def init_source() -> str:
    return Path(__file__).with_name("boxinit.py").read_text()


@dataclass
class BoxRun:
    """What the box did besides its exit status: budgets hit, problems, and its network traffic."""

    limits_hit: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    traffic: Traffic | None = None


class SwarmBox:
    """``with SwarmBox(policy, folder) as sb``: start ``sb.command(argv)`` with ``sb.policy``,
    ``sb.options`` and ``pass_fds=sb.child_fds``, then :meth:`started`, :meth:`wait`, :meth:`finish`."""

    def __init__(self, policy: Policy, folder: Path) -> None:
        self.folder = folder
        self.disks = disk_dirs(policy) if policy.disk_mb else []
        net = folder / "net"
        net.mkdir(mode=0o700)
        hosts = folder / "hosts"
        hosts.write_text(hosts_file(policy.routes))
        self.policy = replace(policy, net_dir=net if policy.routes else None, hosts_file=hosts)
        self.forwarder = Forwarder(list(policy.routes), net) if policy.routes else None
        self._status_r, self._status_w = os.pipe()
        self._control_r, self._control_w = os.pipe()
        self._info_r, self._info_w = os.pipe()
        self._open = {self._status_r, self._status_w, self._control_r, self._control_w, self._info_r, self._info_w}
        self.child_pid: int | None = None
        self.run = BoxRun()

    # --- starting ---------------------------------------------------------------------------------
    def __enter__(self) -> SwarmBox:
        if self.forwarder is not None:
            self.forwarder.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def child_fds(self) -> tuple[int, ...]:
        return self._status_w, self._control_r, self._info_w

    @property
    def options(self) -> tuple[str, ...]:
        return ("--as-pid-1", "--info-fd", str(self._info_w))

    def command(self, argv: list[str]) -> list[str]:
        """``argv`` run by the box's init (:mod:`swarmgym.isolation.boxinit`)."""
        spec = {"status_fd": self._status_w, "control_fd": self._control_r,
                "seed": [[seed_path(n), str(p)] for n, p in enumerate(self.disks)],
                "listen": [[host, port, f"{NET_MOUNT}/{r.sock}"] for r in self.policy.routes for host, port in r.listens]}
        return [os.path.realpath(sys.executable), "-I", "-S", "-c", init_source(), json.dumps(spec), *argv]

    def started(self, timeout: float = 30.0) -> None:
        """Call once the box's process runs: learn the host pid of its init (bubblewrap's info fd)."""
        for fd in self.child_fds:
            self._close(fd)
        data, deadline = b"", time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self._info_r], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(self._info_r, 4096) if ready else b""
            if not chunk:
                break
            data += chunk
        try:
            self.child_pid = int(json.loads(data)["child-pid"])
        except (ValueError, KeyError, TypeError):
            self.child_pid = None

    # --- running ----------------------------------------------------------------------------------
    def wait(self, timeout: float) -> tuple[str, int] | None:
        """(``exit`` | ``stopped``, the swarm's exit status) once the swarm ended; None at ``timeout``;
        (``gone``, -1) if the box ended without saying."""
        ready, _, _ = select.select([self._status_r], [], [], max(0.0, timeout))
        if not ready:
            return None
        line = b""
        while not line.endswith(b"\n"):
            chunk = os.read(self._status_r, 64)
            if not chunk:
                return ("gone", -1) if not line else _parse(line)
            line += chunk
        return _parse(line)

    def stop(self) -> tuple[str, int] | None:
        """The deadline: the box's init kills the swarm (and all it started); its status, or None."""
        try:
            os.write(self._control_w, b"stop\n")
        except OSError:
            return ("gone", -1)
        return self.wait(STOP_GRACE)

    def finish(self, holding: bool) -> BoxRun:
        """Copy the writable folders out of the box — only while its init holds it (``holding``: it said
        the swarm ended and waits; else its pid may be another process's by now) — then let it end."""
        if holding and self.child_pid is not None:
            for path in self.disks:
                self._collect(path)
        elif self.disks:
            self.run.problems.append("box: it ended before its writable folders could be copied out; the workspace "
                                     "is as it was before the run")
        try:
            os.write(self._control_w, b"exit\n")
        except OSError:
            pass
        return self.run

    def _collect(self, path: Path) -> None:
        budget = int(self.policy.disk_mb or 0)
        src = f"/proc/{self.child_pid}/root{path}"
        label = "workspace" if path == self.policy.workspace else f"the swarm's folder {path}"
        try:
            fs = os.statvfs(src)
        except OSError as e:
            self.run.problems.append(f"box: {label} could not be read from the box ({e.strerror or e}); "
                                     "it was not copied out")
            return
        fresh = path.with_name(f"{path.name}.swarmgym-new")
        if fresh.exists():
            shutil.rmtree(fresh, ignore_errors=True)
        got = copy_out(src, fresh, max_bytes=budget * MB)
        replace_tree(fresh, path)
        where = "(sandbox.workspace_mb)"
        if fs.f_bfree == 0 or got.over_bytes:
            self.run.limits_hit.append(f"{label} over its {budget} MB budget {where}: writes past it failed with "
                                       "'No space left on device' while the swarm ran")
        elif fs.f_ffree == 0 or got.over_entries:
            self.run.limits_hit.append(f"{label} over its budget {where}: more than "
                                       f"{MAX_ENTRIES if got.over_entries else fs.f_files} files and folders")
        if got.skipped:
            self.run.problems.append(f"box: {got.skipped} entries of {label} were not copied out (FIFOs, sockets, "
                                     "devices, or files past the budget)")

    def close(self) -> None:
        if self.forwarder is not None:
            self.forwarder.close()
            self.run.traffic = self.forwarder.traffic
        for fd in list(self._open):
            self._close(fd)

    def _close(self, fd: int) -> None:
        if fd in self._open:  # never twice: the number may belong to another job's file by then
            self._open.discard(fd)
            os.close(fd)


def _parse(line: bytes) -> tuple[str, int]:
    word, _, code = line.decode("ascii", "replace").strip().partition(" ")
    try:
        return word, int(code)
    except ValueError:
        return "gone", -1
