"""bubblewrap (Linux): the box is a fresh user, mount, PID, IPC and UTS namespace on an empty root.

The root is bubblewrap's own tmpfs, made read-only once everything is mounted; into it go, read-only,
the system's runtime (:mod:`swarmgym.isolation.allowlist`: ``/usr``, ``/lib*``, a few ``/etc``
files; merged-``/usr`` symlinks as symlinks), then the policy's paths in mount order — read-only
(the Python, the swarm binary, named paths), carve-outs (an empty read-only tmpfs over a hidden
path inside a visible one) and writable (the workspace, goose's per-job state).  ``/tmp`` and
``/dev/shm`` are private tmpfs of ``policy.tmpfs_mb`` each; ``/dev`` holds only the standard
device nodes.  ``HOME`` is the private ``/tmp`` (sandbox.start_boxed).  No capability survives
(``--cap-drop ALL``: the box cannot unmount what covers a path), ``/proc`` shows only the box's
own processes, and every box has a network namespace of its own (``--unshare-net``: a check has
nothing but an empty loopback; the swarm reaches its model endpoints only through the Unix sockets
of ``policy.net_dir``, bound at ``/run/swarmgym/net``, with ``policy.hosts_file`` as its
``/etc/hosts`` — :mod:`swarmgym.isolation.swarmbox`).  With ``policy.disk_mb`` each writable folder is
a tmpfs of that size, its previous content bound read-only at ``/run/swarmgym/seed/N`` for the box's
init to copy in.  When the command exits, or bubblewrap dies (``--die-with-parent``), the kernel
kills every process left in the PID namespace — ``setsid`` or not.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from swarmgym.isolation.allowlist import linux_mounts, system_dirs
from swarmgym.isolation.endpoints import needs_low_ports
from swarmgym.isolation.policy import MB, Policy

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
NETNS_HINT = ("let bubblewrap make network namespaces (sysctl user.max_net_namespaces > 0; "
              "kernel.unprivileged_userns_clone=1 where it exists)")


NET_MOUNT = "/run/swarmgym/net"  # the forwarder's Unix sockets, in the swarm's box
SEED_MOUNT = "/run/swarmgym/seed"  # a writable folder's previous content, for the box's init to copy in
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
                        reason = None if res.returncode == 0 else _why(res, self.wrap(["true"], Policy(
                            workspace=Path(ws).resolve(), limits=None, network=True)))
                except (OSError, subprocess.TimeoutExpired) as e:
                    reason = f"bwrap cannot run ({e})"
            _PROBE.append(reason)
        return _PROBE[0]

    def wrap(self, argv: list[str], policy: Policy, private_tmp: Path | str | None = None, *,
             options: tuple[str, ...] = ()) -> list[str]:
        """bubblewrap's argv for ``argv`` in ``policy``'s box; ``options`` (e.g. ``--as-pid-1``) go before the
        command."""
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
            if needs_low_ports(policy.routes):
                out += ["--cap-add", "CAP_NET_BIND_SERVICE"]  # listeners below 1024, in its own namespace only
        if policy.net_dir is not None:
            out += ["--ro-bind", str(policy.net_dir), NET_MOUNT]  # connect, never write
        if policy.hosts_file is not None:
            out += ["--ro-bind", str(policy.hosts_file), "/etc/hosts"]
        disks = 0
        for path, kind in policy.rules(system_dirs()):
            p = str(path)
            if kind == "hidden":
                if path.is_dir():
                    out += ["--size", str(CARVE_BYTES), "--perms", "0555", "--tmpfs", p, "--remount-ro", p]
                elif path.exists():
                    out += ["--ro-bind", "/dev/null", p]
            elif kind == "rw" and policy.disk_mb:  # a disk of its own; the box's init copies the old content in
                out += ["--size", str(policy.disk_mb * MB), "--perms", "0755", "--tmpfs", p]
                if path.is_dir():
                    out += ["--ro-bind", p, f"{SEED_MOUNT}/{disks}"]
                disks += 1
            elif path.exists():
                out += ["--ro-bind" if kind == "ro" else "--bind", p, p]
        return out + ["--remount-ro", "/etc", "--remount-ro", "/", "--chdir", str(policy.workspace), *options,
                      "--", *argv]


def _why(res: subprocess.CompletedProcess, without_net: list[str]) -> str:
    """Why the probe box failed: the kernel refusing a network namespace, or whatever bubblewrap said."""
    err = res.stderr.decode("utf-8", "replace").strip().splitlines()
    try:
        plain = subprocess.run(without_net, stdin=subprocess.DEVNULL, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        plain = None
    if plain is not None and plain.returncode == 0:
        return (f"the kernel refuses the box a network namespace of its own ({(err or ['?'])[-1]}), so an "
                "untrusted swarm would share the host's network")
    return f"bwrap cannot create a box here ({(err or ['?'])[-1]})"
