"""The one way a swarm process is run: in its isolation box, own process group, timeout, nothing left behind.

The swarm (goose, the simulator, or any command) runs inside the box of ``policy`` (see
:func:`swarmgym.isolation.swarm_policy`: network allowed, writable only the workspace and the
swarm's own state folders, the swarmgym root hidden) and in a new session, so that on timeout
the whole group — the swarm and every worker it spawned — gets SIGKILL; descendants that moved to
their own session are found with psutil (and the box's pids cgroup / PID namespace) and killed too.  stdout/stderr go to temp files (no
pipe can fill up and stall it).  A timeout is recorded as exit code 124.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from swarmgym.core.errors import AdapterError
from swarmgym.isolation import Policy
from swarmgym.isolation.guard import OWNER
from swarmgym.isolation.proctree import descendants as _descendants
from swarmgym.isolation.proctree import kill_tree
from swarmgym.isolation.sandbox import Boxed, start_boxed, tail

TIMEOUT_EXIT = 124
STDOUT_CAP = 32 * 1024 * 1024
TAIL_CAP = 16384


@dataclass
class ProcResult:
    exit_code: int
    timed_out: bool
    wall_secs: float
    stdout: str
    stderr_tail: str
    started: float  # time.time() at start, to tell this run's files from older ones
    oom_kills: int = 0  # processes the kernel killed at the box's memory cap
    ram_mb: int | None = None  # that cap (None: no memory cgroup here)


def resolve_binary(binary: str, *, hint: str = "") -> str:
    """An executable path for ``binary`` (a path or a name on PATH), else AdapterError."""
    if os.sep in binary or (os.altsep and os.altsep in binary):
        p = Path(binary).expanduser()
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
        what = "not executable" if p.is_file() else "not found"
    else:
        found = shutil.which(binary)
        if found:
            return found
        what = "not found on PATH"
    raise AdapterError(f"swarm binary {binary}: {what}{hint}")


def run_process(argv: list[str], cwd: Path | str, env: dict[str, str], timeout: float, *,
                policy: Policy | None = None, backend: str = "none") -> ProcResult:
    """Run ``argv`` in ``cwd`` (in ``backend``'s box for ``policy``); never leaves a process behind;
    raises only if it cannot start."""
    start, started = time.monotonic(), time.time()
    policy = policy or Policy(workspace=Path(cwd).resolve(), network=True, limits=None, max_procs=1 << 20,
                              purpose="swarm")
    with tempfile.TemporaryDirectory(prefix="swarmgym-swarm-") as tmp:
        out_path, err_path = Path(tmp, "stdout"), Path(tmp, "stderr")
        box_tmp = Path(tmp, "tmp")
        box_tmp.mkdir()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            try:
                env = {**env, OWNER: str(os.getpid())}  # lets the orphan guard find the swarm if we die
                box: Boxed = start_boxed(argv, policy, backend, env=env, stdout=out, stderr=err, private_tmp=box_tmp)
                proc = box.proc
            except OSError as e:
                raise AdapterError(f"cannot start swarm {argv[0]}: {e.strerror or e}") from None
            timed_out = False
            seen: list[psutil.Process] = []
            try:
                deadline = start + timeout
                while True:
                    try:
                        code = proc.wait(timeout=min(0.5, max(0.0, deadline - time.monotonic())))
                        break
                    except subprocess.TimeoutExpired:
                        seen = list({p.pid: p for p in seen + _descendants(proc.pid)}.values())
                        if time.monotonic() >= deadline:
                            timed_out = True
                            kill_tree(proc.pid, seen)
                            proc.wait()
                            code = TIMEOUT_EXIT
                            break
            finally:
                if proc.poll() is None:  # interrupted (KeyboardInterrupt, soft time limit …)
                    kill_tree(proc.pid, seen)
                    proc.wait()
                else:
                    kill_tree(proc.pid, seen)  # sweep what the swarm left in its group
                box.teardown()  # and everything left in its box (pids cgroup), setsid or not
        with open(out_path, "rb") as f:
            stdout = f.read(STDOUT_CAP).decode("utf-8", "replace")
        return ProcResult(exit_code=code, timed_out=timed_out, wall_secs=round(time.monotonic() - start, 3),
                          stdout=stdout, stderr_tail=tail(err_path, TAIL_CAP), started=started,
                          oom_kills=box.oom_kills, ram_mb=box.ram_mb)
