"""Doctor checks of this machine: the Python, the isolation box, the ledger folder, free disk."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from swarmgym.doctor.base import Finding, Probe, check
from swarmgym.isolation import AUTO_ORDER, get_backend
from swarmgym.isolation.bwrap import INSTALL_HINT

MIN_PYTHON = (3, 11)
USERNS_HINT = ("allow unprivileged user namespaces, which bubblewrap needs: `sysctl -w "
               "kernel.unprivileged_userns_clone=1` (Debian), `sysctl -w "
               "kernel.apparmor_restrict_unprivileged_userns=0` (Ubuntu 24.04+), or in a container "
               "start it with a seccomp profile that allows unshare; or pass --isolation none to run unboxed")


@check("python")
def python(p: Probe) -> Finding:
    """The Python swarmgym runs in, which also runs the checks (and, with pytest, each app's own tests)."""
    v = sys.version_info
    found = f"Python {v.major}.{v.minor}.{v.micro} at {sys.executable}"
    if v[:2] < MIN_PYTHON:
        return Finding("python", "fail", found, f"install Python {'.'.join(map(str, MIN_PYTHON))} or newer and "
                                                "reinstall swarmgym into it (pip install swarmgym)")
    if importlib.util.find_spec("pytest") is None:
        return Finding("python", "fail", found + " without pytest, which the golden checks run each app's own "
                                                 "tests with", f"{sys.executable} -m pip install pytest")
    return Finding("python", "pass", found + " (with pytest, for the apps' own tests)")


def _version(exe: str) -> str:
    try:
        r = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (r.stdout or r.stderr).strip().splitlines()[0] if (r.stdout or r.stderr).strip() else ""


@check("isolation")
def isolation(p: Probe) -> Finding:
    """The box checks and the swarm run in: bubblewrap on Linux, sandbox-exec on macOS.  Asking the
    backend starts a tiny box (``true`` in an empty root): installed is not enough, it must work here."""
    requested = p.cfg.sandbox.backend
    if requested == "none":
        return Finding("isolation", "pass", "none (sandbox.backend): checks and the swarm run unboxed, as asked")
    name = requested if requested != "auto" else ("seatbelt" if sys.platform == "darwin" else AUTO_ORDER[0])
    backend = get_backend(name)
    why = backend.available()
    if why is None:
        exe = shutil.which("bwrap") if name == "bwrap" else "/usr/bin/sandbox-exec"
        version = _version(exe) if name == "bwrap" and exe else ""
        return Finding("isolation", "pass", f"{name}{' (' + version + ')' if version else ''} at {exe}: "
                                            "a test box started and exited cleanly")
    if name == "bwrap" and shutil.which("bwrap") is None:
        fix = INSTALL_HINT + "; or pass --isolation none to run unboxed (the simulator only)"
    elif name == "bwrap":
        fix = USERNS_HINT
    else:
        fix = "sandbox-exec ships with macOS; on Linux use --isolation bwrap"
    return Finding("isolation", "fail", f"{name} ({'sandbox.backend ' + requested}): {why}", fix)


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


@check("ledger")
def ledger(p: Probe) -> Finding:
    """The ledger folder takes a new file (a probe, removed at once); its sessions.jsonl opens for append."""
    where = p.cfg.ledger_dir
    fix = (f"make {where} writable by this user (chown/chmod), or point --home / SWARMGYM_HOME at a "
           "folder you own")
    if where.exists() and not where.is_dir():
        return Finding("ledger", "fail", f"{where} is not a folder", f"move the file {where} out of the way; {fix}")
    target = where if where.is_dir() else _nearest_existing(where)
    try:
        fd, probe = tempfile.mkstemp(prefix=".doctor-", dir=target)
        os.close(fd)
        os.unlink(probe)
        jsonl = where / "sessions.jsonl"
        if jsonl.is_file():
            with open(jsonl, "a"):
                pass
    except OSError as e:
        return Finding("ledger", "fail", f"{where}: cannot write ({e.strerror or e})", fix)
    state = "exists" if where.is_dir() else f"will be created under {target}"
    return Finding("ledger", "pass", f"{where} ({state}) is writable")


def _mb(n: float) -> str:
    return f"{n / 1024:.1f} GB" if n >= 1024 else f"{n:.0f} MB"


@check("disk")
def disk(p: Probe) -> Finding:
    """Free space where workspaces are built, against one job's budget (``sandbox.workspace_mb``)."""
    where = _nearest_existing(p.cfg.apps_dir)
    free_mb = shutil.disk_usage(where).free / (1 << 20)
    budget = p.cfg.sandbox.workspace_mb
    found = f"{_mb(free_mb)} free on {where}; a workspace may take up to {_mb(budget)} (sandbox.workspace_mb)"
    if free_mb < budget:
        return Finding("disk", "fail", found, f"free space on {where}, or lower sandbox.workspace_mb "
                                              "(SWARMGYM_SANDBOX_WORKSPACE_MB)")
    return Finding("disk", "pass", found)
