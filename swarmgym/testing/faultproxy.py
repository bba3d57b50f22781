"""A TCP proxy that delays and drops, on one host's path to the broker (tests and ``benchmarks/chaos.py``).

This kernel has no ``netem`` qdisc, so a slow or lossy link is a process in the path: ``FaultProxy(listen,
target)`` forwards every connection to ``target``; ``latency = 0.3`` delays every chunk 0.3 s each way (in
order: a delay line, not a stall), :meth:`drop_all` resets every open connection at once (a NAT box or a
flaky Wi-Fi forgetting its flows; the client sees ``ECONNRESET`` and reconnects).
"""
from __future__ import annotations

import queue
import socket
import struct
import threading
import time


class FaultProxy:
    def __init__(self, listen: tuple[str, int], target: tuple[str, int]) -> None:
        self.target = target
        self.latency = 0.0
        self.dropped = 0
        self._conns: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._srv = socket.create_server(listen, reuse_port=False)
        self.address = self._srv.getsockname()[:2]
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name="faultproxy-accept").start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._srv.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns |= {client, upstream}
            for a, b in ((client, upstream), (upstream, client)):
                line: queue.Queue = queue.Queue()
                threading.Thread(target=self._read, args=(a, line), daemon=True).start()
                threading.Thread(target=self._write, args=(b, line, a), daemon=True).start()

    def _read(self, src: socket.socket, line: queue.Queue) -> None:
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            line.put((time.monotonic() + self.latency, data))
            if not data:
                return

    def _write(self, dst: socket.socket, line: queue.Queue, src: socket.socket) -> None:
        while True:
            due, data = line.get()
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                if not data:
                    dst.shutdown(socket.SHUT_WR)
                    return
                dst.sendall(data)
            except OSError:
                self._reset(src)
                return

    def _reset(self, s: socket.socket) -> None:
        with self._lock:
            self._conns.discard(s)
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST, not FIN
            s.close()
        except OSError:
            pass

    def drop_all(self) -> int:
        """Reset every open connection (both sides); returns how many."""
        with self._lock:
            conns = list(self._conns)
        for s in conns:
            self._reset(s)
        self.dropped += len(conns)
        return len(conns)

    def close(self) -> None:
        self._closed = True
        self._srv.close()
        self.drop_all()
