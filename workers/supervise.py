"""Keep a Procfile's processes running: one process's death never stops the others (``swarmgym supervise``).

honcho (and foreman) stop the whole stack when any one process exits — a host that crashes takes the
coordinator, the other hosts and beat down with it.  This supervisor runs each ``name: command`` line of a
Procfile under ``sh`` in a process group of its own, prefixes its output with its name, and restarts a
process that exits (whatever the reason) like systemd's ``Restart=always``: after 1 s, doubling up to
``supervise.restart_max`` while it keeps dying within a minute of its start.  SIGTERM or Ctrl-C stops every
process (SIGTERM to each group, SIGKILL after ``supervise.stop_timeout``) and then the supervisor.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from swarmgym.core.errors import UsageError
from swarmgym.isolation.proctree import group_alive, kill_group

LINE = re.compile(r"^([A-Za-z0-9_.-]+):\s*(.+)$")
SETTLED = 60.0  # seconds: a process that ran this long before it exited restarts after 1 s again


@dataclass
class Entry:
    name: str
    command: str


def parse_procfile(path: Path) -> list[Entry]:
    """The ``name: command`` lines of ``path`` (``#`` comments and blank lines skipped); a bad line is one
    error naming the file and line."""
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise UsageError(f"{path}: cannot read the Procfile ({e.strerror or e})") from None
    out: list[Entry] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = LINE.match(line)
        if m is None:
            raise UsageError(f"{path}:{n}: expected `name: command`, got {line[:60]!r}")
        if any(e.name == m.group(1) for e in out):
            raise UsageError(f"{path}:{n}: process {m.group(1)!r} named twice")
        out.append(Entry(m.group(1), m.group(2)))
    if not out:
        raise UsageError(f"{path}: no `name: command` line")
    return out


@dataclass
class Running:
    entry: Entry
    popen: subprocess.Popen | None = None
    started: float = 0.0
    delay: float = 1.0
    due: float = 0.0          # when to start it again (monotonic)
    restarts: int = 0
    pumps: list[threading.Thread] = field(default_factory=list)


class Supervisor:
    def __init__(self, entries: list[Entry], env: dict[str, str], cwd: Path, *, restart_max: float = 30.0,
                 stop_timeout: float = 10.0, out: IO[str] | None = None) -> None:
        self.procs = [Running(e) for e in entries]
        self.env, self.cwd = env, cwd
        self.restart_max, self.stop_timeout = restart_max, stop_timeout
        self.out = out or sys.stdout
        self.width = max(len(e.name) for e in entries)
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def say(self, name: str, text: str) -> None:
        with self._lock:
            self.out.write(f"{time.strftime('%H:%M:%S')} {name:<{self.width}} | {text}\n")
            self.out.flush()

    def _pump(self, name: str, stream: IO[bytes]) -> None:
        for raw in iter(stream.readline, b""):
            self.say(name, raw.decode(errors="replace").rstrip("\n"))
        stream.close()

    def _start(self, p: Running) -> None:
        p.popen = subprocess.Popen(["sh", "-c", p.entry.command], cwd=self.cwd, env=self.env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        p.started = time.monotonic()
        assert p.popen.stdout is not None
        t = threading.Thread(target=self._pump, args=(p.entry.name, p.popen.stdout), daemon=True)
        t.start()
        p.pumps = [t]
        self.say(p.entry.name, f"started (pid {p.popen.pid})" + (f", restart {p.restarts}" if p.restarts else ""))

    def _check(self, p: Running) -> None:
        now = time.monotonic()
        if p.popen is None:
            if now >= p.due:
                p.restarts += 1
                self._start(p)
            return
        rc = p.popen.poll()
        if rc is None:
            return
        kill_group(p.popen.pid)  # whatever it left in its group goes with it
        ran = now - p.started
        p.delay = 1.0 if ran >= SETTLED else min(self.restart_max, p.delay * 2 if p.restarts else 1.0)
        p.popen, p.due = None, now + p.delay
        self.say(p.entry.name, f"exited with {rc} after {ran:.1f}s; restarting in {p.delay:g}s "
                               "(the other processes keep running)")

    def stop(self, *_: object) -> None:
        self._stop.set()

    def run(self) -> int:
        """Start every process, keep them running until SIGTERM/SIGINT, then stop them all; returns 0."""
        old = {s: signal.signal(s, self.stop) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            for p in self.procs:
                self._start(p)
            while not self._stop.wait(0.2):
                for p in self.procs:
                    self._check(p)
        finally:
            self._stop_all()
            for s, h in old.items():
                signal.signal(s, h)
        return 0

    def _stop_all(self) -> None:
        live = [p for p in self.procs if p.popen is not None and p.popen.poll() is None]
        for p in live:
            assert p.popen is not None
            self.say(p.entry.name, "stopping (SIGTERM)")
            try:
                os.killpg(p.popen.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + self.stop_timeout
        for p in live:
            assert p.popen is not None
            try:
                p.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.say(p.entry.name, f"still running after {self.stop_timeout:g}s: SIGKILL")
            kill_group(p.popen.pid)
            while group_alive(p.popen.pid) and time.monotonic() < deadline + 5:
                time.sleep(0.05)
            p.popen.poll()
