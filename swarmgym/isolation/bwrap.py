"""bubblewrap (Linux): the box is a fresh user, mount, PID, IPC and UTS namespace.

The system is bound read-only; ``/tmp`` is a private tmpfs; every hidden path (the swarmgym
root, ``$HOME``, the suites, swarmgym's own code) is covered by an empty tmpfs; read-only and
writable paths are bound back in, most specific last.  No capability survives (``--cap-drop
ALL``: the box cannot unmount what hides a path), ``/proc`` shows only the box's own processes,
and checks get no network namespace peer (``--unshare-net``: not even the loopback's Redis).
The box's PID 1 is bubblewrap's: when the command exits, or bubblewrap dies (``--die-with-parent``),
the kernel kills every process left in the namespace — ``setsid`` or not.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from swarmgym.isolation.policy import Policy

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"


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
        out = [self.binary() or "bwrap", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
               "--unshare-cgroup-try", "--cap-drop", "ALL", "--die-with-parent", "--new-session",
               "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--tmpfs", "/tmp"]
        if not policy.network:
            out.append("--unshare-net")
        for path, kind in policy.rules():
            p = str(path)
            if kind == "hidden":
                if path.is_dir():
                    out += ["--tmpfs", p]
                elif path.exists():
                    out += ["--ro-bind", "/dev/null", p]
            elif path.exists():
                out += ["--ro-bind" if kind == "ro" else "--bind", p, p]
        return out + ["--chdir", str(policy.workspace), "--", *argv]
