"""Run untrusted commands: an isolation box, own process group, timeout, rlimits, scrubbed env.

Everything the swarm built is untrusted.  :func:`run_sandboxed` is the one way swarmgym runs
such code: ``bash -c COMMAND`` in the workspace, inside the isolation backend's box (see
:mod:`swarmgym.isolation`: for checks no network, only the workspace and a private /tmp
writable), in a new session (process group) that is killed whole on timeout and swept after
exit, under address-space / CPU / file-size limits and a cgroup (processes, RAM + tmpfs), with an environment from
which secrets are removed.  :func:`start_boxed` is the shared launcher (the swarm uses it too).

The check PATH: the directory of the Python interpreter running swarmgym comes first, so
``python3`` and ``pytest`` resolve to the interpreter (and venv) swarmgym was installed into,
exactly as they would for a user who activated that environment; the inherited PATH follows.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import psutil

from swarmgym.isolation import Policy, get_backend
from swarmgym.isolation.cgroup import BoxCgroup
from swarmgym.isolation.policy import MB, Limits
from swarmgym.isolation.proctree import kill_group
from swarmgym.isolation.spawn import spawn
from swarmgym.trust.secrets import is_secret, is_secret_name

__all__ = [
    "MARKER",
    "MB",
    "Boxed",
    "Limits",
    "SandboxResult",
    "helper_env",
    "kill_group",
    "run_sandboxed",
    "scrubbed_env",
    "start_boxed",
    "sweep_marked",
    "tail",
]

DEFAULT_LIMITS = Limits()
MARKER = "SWARMGYM_CHECK_ID"  # set in every check's env; a process that keeps it is swept after the check


@dataclass
class SandboxResult:
    exit_code: int | None
    timed_out: bool
    duration_s: float
    stdout_tail: str
    stderr_tail: str
    oom_kills: int = 0  # processes the kernel killed at the box's memory cap
    ram_mb: int | None = None  # that cap (None: no memory cgroup here)

    def breach(self, what: str = "check") -> str | None:
        """One line naming the resource cap the box hit, or None."""
        if self.oom_kills:
            return (f"{what} exceeded its memory cap ({self.ram_mb} MB): the kernel killed "
                    f"{self.oom_kills} process(es) of its box")
        return None


#: names that steer the interpreter or pytest: an operator's ``PYTEST_ADDOPTS``, ``PYTHONSTARTUP`` or
#: ``PYTHONWARNINGS`` would change how an app's own tests and the probes run, so the verdict would depend on
#: the shell it was graded from (``checks.env`` sets what the checks need, after this)
STEERING_PREFIXES = ("PYTHON", "PYTEST_")


def scrubbed_env(extra_secrets: set[str] | frozenset[str] = frozenset(),
                 base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment model-written code sees: no secret-looking names, nothing that steers Python or pytest
    (:data:`STEERING_PREFIXES`), harness Python first."""
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if not is_secret(k, v, extra_secrets) and not k.startswith(STEERING_PREFIXES)}
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def helper_env(extra_secrets: set[str] | frozenset[str] = frozenset()) -> dict[str, str]:
    """The environment of swarmgym's own helper processes (the orphan guard …): this process's,
    less every secret — a helper never needs one, and a boxed process must find none to read."""
    return {k: v for k, v in os.environ.items() if not is_secret(k, v, extra_secrets)}


@dataclass
class Boxed:
    """A started box: the process, and its cgroup (None where no cgroup is writable)."""

    proc: subprocess.Popen
    cgroup: BoxCgroup | None
    backend: str
    oom_kills: int = 0  # read at teardown: processes the kernel killed at the memory cap

    @property
    def ram_mb(self) -> int | None:
        return self.cgroup.ram_mb if self.cgroup is not None else None

    def teardown(self) -> None:
        """Kill every process still in the box (the cgroup sees setsid'd ones too) and remove it."""
        kill_group(self.proc.pid)
        if self.cgroup is not None:
            self.oom_kills = self.cgroup.oom_kills()
            self.cgroup.close()


def start_boxed(argv: list[str], policy: Policy, backend: str, *, env: dict[str, str], stdout: IO[bytes],
                stderr: IO[bytes], private_tmp: str | Path, options: tuple[str, ...] = (),
                pass_fds: tuple[int, ...] = ()) -> Boxed:
    """Start ``argv`` inside ``backend``'s box for ``policy``, in a new session; raises OSError only
    if it cannot start.  rlimits (``policy.limits``) and the cgroup (``policy.max_procs``,
    ``policy.ram_mb``) apply to the whole box; ``options`` go to the backend (bwrap's ``--as-pid-1``),
    ``pass_fds`` stay open in the box's first process."""
    env = dict(env)
    if backend == "bwrap":
        env["TMPDIR"] = env["HOME"] = "/tmp"  # the box's private tmpfs; the real $HOME is not in the box
    elif backend == "seatbelt":
        env["TMPDIR"] = env["HOME"] = str(private_tmp)
    box = get_backend(backend)  # options only when there are some: a registered backend may not take them
    wrapped = box.wrap(argv, policy, private_tmp, options=options) if options else box.wrap(argv, policy, private_tmp)
    cgroup = BoxCgroup.create(policy.max_procs, policy.ram_mb)
    try:
        proc = spawn(wrapped, cwd=str(policy.workspace), env=env, stdout=stdout, stderr=stderr, cgroup=cgroup,
                     limits=policy.limits, pass_fds=pass_fds)
    except BaseException:
        if cgroup is not None:
            cgroup.close()
        raise
    return Boxed(proc, cgroup, backend)


def tail(path: Path | str | IO[bytes], cap: int) -> str:
    """The last ``cap`` bytes of a file (a path, or an open binary file) as text."""
    if not isinstance(path, (str, Path)):
        return _tail(path, cap)
    with open(path, "rb") as f:
        return _tail(f, cap)


def _tail(f: IO[bytes], cap: int) -> str:
    f.seek(0, os.SEEK_END)
    size = f.tell()
    f.seek(max(0, size - cap))
    text = f.read().decode("utf-8", "replace")
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


def run_sandboxed(command: str, cwd: str | Path, *, timeout: float, limits: Limits = DEFAULT_LIMITS,
                  extra_secrets: set[str] | frozenset[str] = frozenset(),
                  output_cap: int = 16384, env_extra: dict[str, str] | None = None,
                  policy: Policy | None = None, backend: str = "none") -> SandboxResult:
    """Run ``bash -c command`` in ``cwd`` in ``backend``'s box; never raises for the command's faults.

    ``policy`` defaults to "workspace ``cwd``, these limits, no network" (what ``none`` needs)."""
    env = scrubbed_env(extra_secrets)
    for k, v in (env_extra or {}).items():
        if not is_secret_name(k, extra_secrets):
            env[k] = v
    token = env[MARKER] = uuid.uuid4().hex
    policy = policy or Policy(workspace=Path(cwd).resolve(), limits=limits, max_procs=limits.max_procs)
    born = time.time()
    start = time.monotonic()
    # stdout/stderr: unnamed temp files (nothing to create or remove in a folder); a private temp dir only
    # where the box needs one on the host (seatbelt): bwrap's /tmp is its own tmpfs
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            (tempfile.TemporaryDirectory(prefix="swarmgym-check-") if backend == "seatbelt"
             else contextlib.nullcontext(tempfile.gettempdir())) as box_tmp:
        box = start_boxed(["bash", "-c", command], policy, backend, env=env, stdout=out, stderr=err,
                          private_tmp=box_tmp)
        proc = box.proc
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
            box.teardown()  # the group, and everything in the box's cgroup (setsid or not)
            if backend == "none" and box.cgroup is None:
                sweep_marked(token, born)  # what left the group (setsid) but kept the marker
        timed_out = fired.is_set()
        if timed_out:
            code = None
        return SandboxResult(exit_code=code, timed_out=timed_out, duration_s=time.monotonic() - start,
                             stdout_tail=tail(out, output_cap), stderr_tail=tail(err, output_cap),
                             oom_kills=box.oom_kills, ram_mb=box.ram_mb)
