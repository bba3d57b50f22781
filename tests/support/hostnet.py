"""What the host offers that no swarm box may reach, for the network tests: its LAN address, a TCP service
on every address, a UDP echo on the loopback, an abstract Unix socket — and how much disk it has free."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path


def lan_address() -> str | None:
    """The host's first global IPv4 address (``ip -4 addr``), or None."""
    res = subprocess.run(["ip", "-4", "-o", "addr", "show", "scope", "global"], capture_output=True, text=True,
                         check=False)
    for line in res.stdout.splitlines():
        parts = line.split()
        if "inet" in parts:
            return parts[parts.index("inet") + 1].split("/")[0]
    return None


class HostServices:
    """A TCP service on every address (``tcp_port``: reachable at the LAN address too), a UDP echo on the
    loopback (``udp_port``), an abstract Unix socket (``abstract_name``); each answers with a line."""

    def __init__(self) -> None:
        self.tcp = socket.create_server(("0.0.0.0", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.abstract_name = f"swarmgym-test-{os.getpid()}-{id(self)}"
        self.abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.abstract.bind("\0" + self.abstract_name)
        self.abstract.listen()
        self.tcp_port, self.udp_port = self.tcp.getsockname()[1], self.udp.getsockname()[1]
        for sock, reply in ((self.tcp, b"host service"), (self.abstract, b"host abstract socket")):
            threading.Thread(target=self._serve, args=(sock, reply), daemon=True).start()
        threading.Thread(target=self._echo, daemon=True).start()

    @staticmethod
    def _serve(sock: socket.socket, reply: bytes) -> None:
        while True:
            try:
                c, _ = sock.accept()
                c.sendall(reply)
                c.close()
            except OSError:
                return

    def _echo(self) -> None:
        while True:
            try:
                _, addr = self.udp.recvfrom(64)
                self.udp.sendto(b"host udp", addr)
            except OSError:
                return

    def close(self) -> None:
        for s in (self.tcp, self.udp, self.abstract):
            s.close()


@contextlib.contextmanager
def watched_free_space(path: Path) -> Iterator[list[int]]:
    """The free bytes of ``path``'s file system, sampled at 50 Hz while the block runs (the first sample
    is taken before it)."""
    st = os.statvfs(path)
    free, done = [st.f_bavail * st.f_frsize], threading.Event()

    def watch() -> None:
        while not done.is_set():
            s = os.statvfs(path)
            free.append(s.f_bavail * s.f_frsize)
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        yield free
    finally:
        done.set()
        watcher.join()
