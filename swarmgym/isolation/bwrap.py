"""bubblewrap (Linux): the box is a fresh user, mount, PID, IPC and UTS namespace on an empty root.

The root is bubblewrap's own tmpfs, made read-only once everything is mounted; into it go, read-only,
the system's runtime (:mod:`swarmgym.isolation.allowlist`: ``/usr``, ``/lib*``, a few ``/etc``
files; merged-``/usr`` symlinks as symlinks), then the policy's paths in mount order — read-only
(the Python, the swarm binary, named paths), carve-outs (an empty read-only tmpfs over a hidden
path inside a visible one) and writable (the workspace, goose's per-job state).  ``/tmp`` and
``/dev/shm`` are private tmpfs of ``policy.tmpfs_mb`` each; ``/dev`` holds only the standard
device nodes.  ``HOME`` is the private ``/tmp`` (sandbox.start_boxed).  No capability survives
(``--cap-drop ALL``: the box cannot unmount what covers a path), ``/proc`` shows only the box's
own processes, and checks get no network namespace peer (``--unshare-net``: not even the
loopback's Redis).  The box's PID 1 is bubblewrap's: when the command exits, or bubblewrap dies
(``--die-with-parent``), the kernel kills every process left in the namespace — ``setsid`` or not.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from swarmgym.isolation.allowlist import linux_mounts, system_dirs
from swarmgym.isolation.policy import MB, Policy

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"


CARVE_BYTES = 4096  # an empty, read-only tmpfs over a hidden path: one page
_PROBE: list[str | None] = []  # the one availability probe of this process


class BwrapBackend:
    name = "bwrap"

    def binary(self) -> str | None:
        return shutil.which("bwrap")

    def available(self) -> str | None:
        """None if bubblewrap can build a box here (probed once per process), else why not."""
        if not _PROBE:
            exe = self.binary()
            if exe is None:
                reason: str | None = "bwrap not found on PATH"
            else:
                try:
                    with tempfile.TemporaryDirectory(prefix="swarmgym-probe-") as ws:
                        argv = self.wrap(["true"], Policy(workspace=Path(ws).resolve(), limits=None))
                        res = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=20, check=False)
                    err = res.stderr.decode("utf-8", "replace").strip().splitlines()
                    reason = None if res.returncode == 0 else f"bwrap cannot create a box here ({(err or ['?'])[-1]})"
                except (OSError, subprocess.TimeoutExpired) as e:
                    reason = f"bwrap cannot run ({e})"
            _PROBE.append(reason)
        return _PROBE[0]

    def wrap(self, argv: list[str], policy: Policy, private_tmp: Path | str | None = None) -> list[str]:
        size = str(max(1, policy.tmpfs_mb) * MB)
        out = [self.binary() or "bwrap", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
               "--unshare-cgroup-try", "--cap-drop", "ALL", "--die-with-parent", "--new-session"]
        mounts = linux_mounts()
        for m in mounts:
            if m.kind == "symlink":
                out += ["--symlink", m.target, m.path]
            elif m.kind == "etc":  # writable until every mount point is made, then read-only
                out += ["--bind", m.target, m.path]
            else:
                out += ["--ro-bind", m.path, m.path]
        out += ["--dev", "/dev", "--size", size, "--perms", "1777", "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
                "--proc", "/proc", "--size", size, "--perms", "1777", "--tmpfs", "/tmp"]
        if not policy.network:
            out.append("--unshare-net")
        for path, kind in policy.rules(system_dirs()):
            p = str(path)
            if kind == "hidden":
                if path.is_dir():
                    out += ["--size", str(CARVE_BYTES), "--perms", "0555", "--tmpfs", p, "--remount-ro", p]
                elif path.exists():
                    out += ["--ro-bind", "/dev/null", p]
            elif path.exists():
                out += ["--ro-bind" if kind == "ro" else "--bind", p, p]
        return out + ["--remount-ro", "/etc", "--remount-ro", "/", "--chdir", str(policy.workspace), "--", *argv]
