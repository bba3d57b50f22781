"""A throwaway ``redis-server`` on a free port: tests, benchmarks and dry runs never share a Redis.

``LocalRedis()`` starts ``redis-server --port <free> --save '' --appendonly no`` in a temp folder
(no persistence: a restart is a flushed Redis), ``url(db)`` gives its URL, ``restart()`` stops and
starts it on the same port (what a Redis crash without persistence looks like to the fleet),
``stop()`` ends it.  Two runs on one machine each get their own server, so they never consume
each other's tasks.
"""
from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from swarmgym.core.errors import QueueError
from swarmgym.testing.localfleet import term_with_parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def redis_server_binary() -> str | None:
    return shutil.which("redis-server")


class LocalRedis:
    def __init__(self, port: int | None = None, *, start: bool = True) -> None:
        binary = redis_server_binary()
        if binary is None:
            raise QueueError("redis-server: not found on PATH (install redis, e.g. apt-get install redis-server)")
        self.binary = binary
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="swarmgym-redis-"))
        self.proc: subprocess.Popen | None = None
        if start:
            self.start()

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self, timeout: float = 15.0) -> None:
        log = open(self.dir / "redis.log", "ab")
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.dir), "--maxmemory-policy", "noeviction"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=term_with_parent)  # a killed test run or benchmark leaves no server behind
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise QueueError(f"redis-server on port {self.port} exited with {self.proc.returncode} "
                                 f"(log {self.dir / 'redis.log'})")
            if self.ping():
                return
            time.sleep(0.05)
        raise QueueError(f"redis-server on port {self.port} did not answer within {timeout:g}s")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        p, self.proc = self.proc, None
        if p is None or p.poll() is not None:
            return
        p.kill()
        p.wait(timeout=10)

    def restart(self) -> None:
        """Stop and start again on the same port: every key is gone (no persistence)."""
        self.stop()
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> LocalRedis:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
