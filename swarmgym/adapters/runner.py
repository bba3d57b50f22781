"""The one way a swarm process is run: own process group, timeout, nothing left behind.

The swarm (goose, the simulator, or any command) runs in a new session so that on timeout the
whole group — the swarm and every worker it spawned — gets SIGKILL; descendants that moved to
their own session are found with psutil and killed too.  stdout/stderr go to temp files (no
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

from swarmgym.errors import AdapterError
from swarmgym.guard import OWNER
from swarmgym.proctree import descendants as _descendants
from swarmgym.proctree import kill_tree
from swarmgym.sandbox import tail

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


def run_process(argv: list[str], cwd: Path | str, env: dict[str, str], timeout: float) -> ProcResult:
    """Run ``argv`` in ``cwd``; never leaves a process behind; raises only if it cannot start."""
    start, started = time.monotonic(), time.time()
    with tempfile.TemporaryDirectory(prefix="swarmgym-swarm-") as tmp:
        out_path, err_path = Path(tmp, "stdout"), Path(tmp, "stderr")
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            try:
                env = {**env, OWNER: str(os.getpid())}  # lets the orphan guard find the swarm if we die
                proc = subprocess.Popen(argv, cwd=str(cwd), env=env, stdin=subprocess.DEVNULL, stdout=out,
                                        stderr=err, start_new_session=True, close_fds=True)
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
        with open(out_path, "rb") as f:
            stdout = f.read(STDOUT_CAP).decode("utf-8", "replace")
        return ProcResult(exit_code=code, timed_out=timed_out, wall_secs=round(time.monotonic() - start, 3),
                          stdout=stdout, stderr_tail=tail(err_path, TAIL_CAP), started=started)
