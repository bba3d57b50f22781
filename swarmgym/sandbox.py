"""Run untrusted commands: own process group, timeout, rlimits, scrubbed env, capped output.

Everything the swarm built is untrusted.  :func:`run_sandboxed` is the one way swarmgym runs
such code: ``bash -c COMMAND`` in the workspace, in a new session (process group) that is
killed whole on timeout and swept after exit, under address-space / CPU / process / file-size
limits, with an environment from which secrets are removed.

The check PATH: the directory of the Python interpreter running swarmgym comes first, so
``python3`` and ``pytest`` resolve to the interpreter (and venv) swarmgym was installed into,
exactly as they would for a user who activated that environment; the inherited PATH follows.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import threading
import uuid
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from swarmgym.proctree import kill_group
from swarmgym.secrets import is_secret, is_secret_name

MB = 1024 * 1024
MARKER = "SWARMGYM_CHECK_ID"  # set in every check's env; a process that keeps it is swept after the check


@dataclass(frozen=True)
class Limits:
    memory_mb: int = 2048
    cpu_secs: int = 300
    max_procs: int = 512
    file_size_mb: int = 256

    @classmethod
    def from_config(cls, checks) -> "Limits":
        return cls(checks.memory_mb, checks.cpu_secs, checks.max_procs, checks.file_size_mb)


@dataclass
class SandboxResult:
    exit_code: int | None
    timed_out: bool
    duration_s: float
    stdout_tail: str
    stderr_tail: str


def scrubbed_env(extra_secrets: set[str] | frozenset[str] = frozenset(),
                 base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment model-written code sees: no secret-looking names, harness Python first."""
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if not is_secret(k, v, extra_secrets)}
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTHONPATH", None)
    return env


def _limiter(limits: Limits):
    def apply() -> None:
        def cap(which: int, value: int) -> None:
            try:
                soft, hard = resource.getrlimit(which)
                if hard != resource.RLIM_INFINITY:
                    value = min(value, hard)
                resource.setrlimit(which, (value, value if hard == resource.RLIM_INFINITY else hard))
            except (ValueError, OSError):
                pass
        cap(resource.RLIMIT_AS, limits.memory_mb * MB)
        cap(resource.RLIMIT_CPU, limits.cpu_secs)
        cap(resource.RLIMIT_NPROC, limits.max_procs)
        cap(resource.RLIMIT_FSIZE, limits.file_size_mb * MB)
        cap(resource.RLIMIT_CORE, 0)
    return apply


def tail(path: Path | str, cap: int) -> str:
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - cap))
        data = f.read()
    text = data.decode("utf-8", "replace")
    return ("…" + text) if size > cap else text


def sweep_marked(token: str, since: float) -> int:
    """SIGKILL every process started since ``since`` whose environment carries this check's marker."""
    killed = 0
    for p in psutil.process_iter(["create_time"]):
        try:
            if p.info["create_time"] < since - 1 or p.pid == os.getpid():
                continue
            if p.environ().get(MARKER) == token:
                p.kill()
                killed += 1
        except (psutil.Error, OSError):
            continue
    return killed


def run_sandboxed(command: str, cwd: str | Path, *, timeout: float, limits: Limits = Limits(),
                  extra_secrets: set[str] | frozenset[str] = frozenset(),
                  output_cap: int = 16384, env_extra: dict[str, str] | None = None) -> SandboxResult:
    """Run ``bash -c command`` in ``cwd`` under the sandbox; never raises for the command's faults."""
    env = scrubbed_env(extra_secrets)
    for k, v in (env_extra or {}).items():
        if not is_secret_name(k, extra_secrets):
            env[k] = v
    token = env[MARKER] = uuid.uuid4().hex
    born = time.time()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="swarmgym-check-") as tmp:
        out_path, err_path = Path(tmp, "out"), Path(tmp, "err")
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(["bash", "-c", command], cwd=str(cwd), env=env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err, start_new_session=True,
                                    preexec_fn=_limiter(limits), close_fds=True)
            # A timer kills the group at the deadline while we block in wait(): Popen.wait(timeout=...)
            # polls with sleeps of up to 50 ms, which added ~25 ms to every check (benchmarks/checks.py).
            fired = threading.Event()

            def on_deadline() -> None:
                fired.set()
                kill_group(proc.pid)

            timer = threading.Timer(timeout, on_deadline)
            timer.daemon = True
            timer.start()
            try:
                code: int | None = proc.wait()
            finally:
                timer.cancel()
                kill_group(proc.pid)  # sweep anything the command left behind in its group
                sweep_marked(token, born)  # and what left the group (setsid) but kept the marker
            timed_out = fired.is_set()
            if timed_out:
                code = None
        return SandboxResult(exit_code=code, timed_out=timed_out, duration_s=time.monotonic() - start,
                             stdout_tail=tail(out_path, output_cap), stderr_tail=tail(err_path, output_cap))
