"""The one way a swarm process is run: in its isolation box, own process group, timeout, nothing left behind.

The swarm (goose, the simulator, or any command) runs inside the box of ``policy`` (see
:func:`swarmgym.isolation.swarm_policy`: a network of its own reaching only its model endpoints,
writable only the workspace and the swarm's own state folders — on bubblewrap each a disk of its own
(:mod:`swarmgym.isolation.swarmbox`) —, the swarmgym root hidden) and in a new session, so that on
timeout the whole group — the swarm and every worker it spawned — gets SIGKILL; descendants that
moved to their own session are found with psutil (and the box's pids cgroup / PID namespace) and
killed too.  stdout/stderr go to temp files (no pipe can fill up and stall it).  A timeout is
recorded as exit code 124.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import psutil

from swarmgym.core.errors import AdapterError
from swarmgym.isolation import Policy
from swarmgym.isolation.forward import Traffic
from swarmgym.isolation.guard import OWNER
from swarmgym.isolation.proctree import descendants as _descendants
from swarmgym.isolation.proctree import kill_tree
from swarmgym.isolation.sandbox import Boxed, start_boxed, tail
from swarmgym.isolation.swarmbox import SwarmBox

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
    disk_budget: bool = False  # its writable folders had a budget while it ran (then limits_hit says if it held)
    limits_hit: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    traffic: Traffic | None = None  # through the forwarder (None: no network of its own)


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
        env = {**env, OWNER: str(os.getpid())}  # lets the orphan guard find the swarm if we die
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            if backend == "bwrap":
                res = _run_swarmbox(argv, policy, env, out, err, Path(tmp), box_tmp, start + timeout)
            else:
                res = _run_grouped(argv, policy, backend, env, out, err, box_tmp, start + timeout)
        with open(out_path, "rb") as f:
            res.stdout = f.read(STDOUT_CAP).decode("utf-8", "replace")
        res.wall_secs, res.started = round(time.monotonic() - start, 3), started
        res.stderr_tail = tail(err_path, TAIL_CAP)
        return res


def _start(argv: list[str], policy: Policy, backend: str, env: dict[str, str], out: IO[bytes], err: IO[bytes],
           box_tmp: Path, **kw) -> Boxed:
    try:
        return start_boxed(argv, policy, backend, env=env, stdout=out, stderr=err, private_tmp=box_tmp, **kw)
    except OSError as e:
        raise AdapterError(f"cannot start swarm {argv[0]}: {e.strerror or e}") from None


def _run_swarmbox(argv: list[str], policy: Policy, env: dict[str, str], out: IO[bytes], err: IO[bytes],
                  folder: Path, box_tmp: Path, deadline: float) -> ProcResult:
    """bubblewrap: the box's init runs the swarm, and at its end (or the deadline) holds the box until
    its writable folders are copied out."""
    with SwarmBox(policy, folder) as sb:
        box = _start(sb.command(argv), sb.policy, "bwrap", env, out, err, box_tmp, options=sb.options,
                     pass_fds=sb.child_fds)
        timed_out = False
        try:
            sb.started()
            said = sb.wait(deadline - time.monotonic())
            if said is None:
                timed_out = True
                said = sb.stop()
            run = sb.finish(holding=said is not None and said[0] in ("exit", "stopped"))
        finally:
            box.teardown()  # everything left in its box (pids cgroup, PID namespace), setsid or not
        code = box.proc.wait()
    if timed_out:
        code = TIMEOUT_EXIT
    elif said is not None and said[0] == "exit":
        code = said[1]
    return ProcResult(exit_code=code, timed_out=timed_out, wall_secs=0.0, stdout="", stderr_tail="", started=0.0,
                      oom_kills=box.oom_kills, ram_mb=box.ram_mb, disk_budget=bool(policy.disk_mb),
                      limits_hit=run.limits_hit, problems=run.problems, traffic=run.traffic)


def _run_grouped(argv: list[str], policy: Policy, backend: str, env: dict[str, str], out: IO[bytes],
                 err: IO[bytes], box_tmp: Path, deadline: float) -> ProcResult:
    """``none`` and seatbelt: the swarm's process group (and what psutil saw of it) is the box."""
    box = _start(argv, policy, backend, env, out, err, box_tmp)
    proc = box.proc
    timed_out = False
    seen: list[psutil.Process] = []
    try:
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
    return ProcResult(exit_code=code, timed_out=timed_out, wall_secs=0.0, stdout="", stderr_tail="", started=0.0,
                      oom_kills=box.oom_kills, ram_mb=box.ram_mb)
