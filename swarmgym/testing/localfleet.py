"""A fleet on one machine: real worker processes for tests, benchmarks and dry runs.

``LocalFleet(home)`` starts ``swarmgym worker`` subprocesses (each in its own session, output
to ``<logs>/<name>.log``), waits until they answer a ping, and stops them (SIGTERM, then
SIGKILL of the whole group).  ``kill(name)`` SIGKILLs only a worker's main process, like a host
losing power mid-job.

Each host gets a key of its own and the coordinator a keyring trusting them, in ``keys`` (default:
a private temp folder, outside the home), as an operator would set up with ``swarmgym hosts key``;
an env that names ``SWARMGYM_QUEUE_HOST_KEY_FILE`` / ``SWARMGYM_QUEUE_KEYRING_FILE`` keeps its own.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

import psutil

from swarmgym.isolation.proctree import kill_group
from swarmgym.trust.hostkeys import new_key_file, trust, write_keyring


def term_with_parent() -> None:
    """Linux: SIGTERM this child when the process that started it dies (a killed test run
    must not leave workers consuming the queue).  Kept across exec; a no-op elsewhere."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen
    log: Path


class LocalFleet:
    def __init__(self, home: Path, env: dict[str, str] | None = None, logs: Path | None = None,
                 die_with_parent: bool = False, keys: Path | None = None):
        self.home = Path(home)
        self.die_with_parent = die_with_parent
        self.env = {**os.environ, **(env or {}), "SWARMGYM_HOME": str(self.home)}
        self.logs = Path(logs or self.home / "logs")
        self.logs.mkdir(parents=True, exist_ok=True)
        self.procs: dict[str, Proc] = {}
        self.keys = Path(keys or tempfile.mkdtemp(prefix="swarmgym-keys-"))
        if keys is None:  # ours: gone with this object (or at exit)
            weakref.finalize(self, shutil.rmtree, str(self.keys), True)
        self.keyring = Path(self.env.get("SWARMGYM_QUEUE_KEYRING_FILE") or self.keys / "keyring")
        self.env["SWARMGYM_QUEUE_KEYRING_FILE"] = str(self.keyring)

    def host_key(self, host: str) -> Path:
        """``host``'s key file, created and trusted by this fleet's keyring on first use."""
        path = self.keys / f"{host}.key"
        if not path.exists():
            trust(self.keyring, host, new_key_file(path, host))
        return path

    def _host_env(self, host: str, env: dict[str, str] | None) -> dict[str, str]:
        env = dict(env or {})
        if "SWARMGYM_QUEUE_HOST_KEY_FILE" not in {**self.env, **env}:
            env["SWARMGYM_QUEUE_HOST_KEY_FILE"] = str(self.host_key(host))
        return env

    def _spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> Proc:
        log = self.logs / f"{name.replace('@', '_')}.log"
        f = open(log, "ab")
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             env={**self.env, **(env or {})}, cwd=str(self.home), start_new_session=True,
                             preexec_fn=term_with_parent if self.die_with_parent else None)
        f.close()
        proc = Proc(name, p, log)
        self.procs[name] = proc
        return proc

    def worker(self, variant: str, host: str, *, home: Path | None = None, env: dict[str, str] | None = None,
               concurrency: int = 1, prefix: list[str] | None = None) -> str:
        """Start host worker ``<variant>@<host>``; ``prefix`` runs it through a wrapper (e.g. ``ip netns exec NS``:
        :meth:`swarmgym.testing.netlab.NetLab.wrap`)."""
        name = f"{variant}@{host}"
        self._spawn(name, [*(prefix or []), sys.executable, "-m", "swarmgym", "worker", "--variant", variant,
                           "--host", host, "--concurrency", str(concurrency), "--home", str(home or self.home)],
                    self._host_env(host, env))
        return name

    def coordinator(self, host: str = "coord", env: dict[str, str] | None = None) -> str:
        name = f"coordinator@{host}"
        if not self.keyring.exists():
            write_keyring(self.keyring, {})
        self._spawn(name, [sys.executable, "-m", "swarmgym", "worker", "--coordinator", "--host", host,
                           "--home", str(self.home)], env)
        return name

    def spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> Proc:
        return self._spawn(name, argv, env)

    def wait_ready(self, app, names: list[str] | None = None, timeout: float = 60.0) -> None:
        names = list(names or self.procs)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for n in names:
                p = self.procs[n].popen
                if p.poll() is not None:
                    raise RuntimeError(f"{n} exited with {p.returncode}:\n{self.procs[n].log.read_text()[-3000:]}")
            replies = app.control.ping(destination=names, timeout=0.5) or []
            seen = {k for r in replies for k in r}
            if set(names) <= seen:
                return
        raise TimeoutError(f"workers not ready after {timeout}s: {sorted(set(names))}")

    def kill(self, name: str) -> None:
        """SIGKILL the worker's main process only (its pool child dies with it; the swarm does not)."""
        self.procs[name].popen.send_signal(signal.SIGKILL)
        self.procs[name].popen.wait(timeout=10)

    def stop(self, name: str, timeout: float = 20.0) -> None:
        proc = self.procs.pop(name, None)
        if proc is None:
            return
        _term(proc.popen)
        _reap(proc.popen, timeout)

    def stop_all(self) -> None:
        """SIGTERM every process at once (they shut down side by side, not one after the other), then
        reap each: SIGKILL of its group if it is still there after 10 s."""
        procs = [self.procs.pop(name) for name in list(self.procs)]
        for proc in procs:
            _term(proc.popen)
        for proc in procs:
            _reap(proc.popen, 10.0)


def _term(p: subprocess.Popen) -> None:
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


def _reap(p: subprocess.Popen, timeout: float) -> None:
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    kill_group(p.pid)
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def swarm_processes(markers: tuple[str, ...] = ("swarmgym-sim", "swarmgym.sim")) -> list[psutil.Process]:
    """Live simulator processes (to prove nothing was orphaned)."""
    out = []
    for p in psutil.process_iter(["cmdline", "status"]):
        try:
            if p.info["status"] == psutil.STATUS_ZOMBIE:
                continue
            if any(m in part for part in (p.info["cmdline"] or []) for m in markers):
                out.append(p)
        except psutil.Error:
            continue
    return out
