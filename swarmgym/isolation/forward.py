"""The host side of a swarm box's network: one Unix socket per model endpoint, relayed to that endpoint only.

The box has its own network namespace (nothing but its loopback); its first process
(:mod:`swarmgym.isolation.boxinit`) listens where the swarm expects each endpoint and relays every
connection over the endpoint's Unix socket, in a folder bound into the box.  :class:`Forwarder`
accepts on those sockets and connects each one to its :class:`~swarmgym.isolation.endpoints.Route`'s
endpoint — never anywhere else: the destination is fixed by the socket, the box sends no address.
Bytes stream both ways as they come (a server-sent-events or chunked reply reaches the swarm chunk by
chunk; TCP_NODELAY towards the endpoint), and are counted for the job's record.  Where the endpoint
needs a key, requests pass through :class:`~swarmgym.isolation.httphead.HeaderSetter` (and TLS starts
here for an ``https`` endpoint), so the key never enters the box.
"""
from __future__ import annotations

import socket
import ssl
import threading
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from swarmgym.isolation.endpoints import Route
from swarmgym.isolation.httphead import HeaderSetter

CHUNK = 64 * 1024
CONNECT_TIMEOUT = 10.0


@dataclass
class Traffic:
    """What went through a forwarder: bytes to the endpoints, bytes back, connections made and refused."""

    sent: int = 0
    received: int = 0
    connections: int = 0
    failed: int = 0  # the endpoint could not be reached (or a request head was malformed)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, **counts: int) -> None:
        with self.lock:
            for k, v in counts.items():
                setattr(self, k, getattr(self, k) + v)


class Forwarder:
    """``with Forwarder(routes, folder) as fwd:`` — sockets ``folder/<route.sock>`` live until the block ends."""

    def __init__(self, routes: list[Route], folder: Path | str, *, connect_timeout: float = CONNECT_TIMEOUT) -> None:
        self.routes = list(routes)
        self.folder = Path(folder)
        self.connect_timeout = connect_timeout
        self.traffic = Traffic()
        self._listeners: list[socket.socket] = []
        self._live: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False

    def __enter__(self) -> Forwarder:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> Forwarder:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            for route in self.routes:
                lst = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self._listeners.append(lst)
                lst.bind(str(self.folder / route.sock))
                lst.listen(128)
                threading.Thread(target=self._accept, args=(lst, route), daemon=True,
                                 name=f"swarmgym-forward-{route.sock}").start()
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        """Stop accepting and cut every open connection (the box is gone, or going)."""
        with self._lock:
            self._closed = True
            socks = [*self._listeners, *self._live]
        for s in socks:
            with suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked in accept() or recv()
            with suppress(OSError):
                s.close()

    def _track(self, *socks: socket.socket) -> bool:
        with self._lock:
            if self._closed:
                return False
            self._live.update(socks)
            return True

    def _untrack(self, *socks: socket.socket) -> None:
        with self._lock:
            self._live.difference_update(socks)
        for s in socks:
            with suppress(OSError):
                s.close()

    def _accept(self, lst: socket.socket, route: Route) -> None:
        while True:
            try:
                conn, _ = lst.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(conn, route), daemon=True).start()

    def _connect(self, route: Route) -> socket.socket:
        ep = route.endpoint
        up = socket.create_connection((ep.host, ep.port), timeout=self.connect_timeout)
        up.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if ep.tls:
            up = ssl.create_default_context().wrap_socket(up, server_hostname=ep.host)
        up.settimeout(None)
        return up

    def _serve(self, conn: socket.socket, route: Route) -> None:
        if not self._track(conn):
            conn.close()
            return
        try:
            up = self._connect(route)
        except OSError:
            self.traffic.add(failed=1)
            self._untrack(conn)
            return
        if not self._track(up):
            self._untrack(conn, up)
            return
        self.traffic.add(connections=1)
        header = route.header
        ep = route.endpoint
        rewrite = HeaderSetter(*header, host=ep.upstream if ep.listen else None).feed if header else None
        back = threading.Thread(target=self._pump, args=(up, conn, "received", None), daemon=True)
        back.start()
        self._pump(conn, up, "sent", rewrite)
        back.join()
        self._untrack(conn, up)

    def _pump(self, src: socket.socket, dst: socket.socket, counter: str, rewrite) -> None:
        buf = bytearray(CHUNK)
        view = memoryview(buf)
        try:
            while True:
                n = src.recv_into(buf)
                if n == 0:
                    break
                data = rewrite(bytes(view[:n])) if rewrite else view[:n]
                if data:
                    dst.sendall(data)
                    self.traffic.add(**{counter: len(data)})
        except ValueError:  # a malformed request head: nothing unchecked goes on
            self.traffic.add(failed=1)
            with suppress(OSError):
                src.shutdown(socket.SHUT_RDWR)
        except OSError:
            with suppress(OSError):
                src.shutdown(socket.SHUT_RDWR)
        with suppress(OSError):
            dst.shutdown(socket.SHUT_WR)
