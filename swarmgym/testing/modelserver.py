"""A loopback model server that streams: LM Studio's OpenAI-style chat API and Anthropic's Messages API.

For tests, benchmarks and dry runs of the swarm box's network: ``ModelServer()`` listens on a free
port (``host`` ``0.0.0.0`` to be reached by another name) and answers

- ``POST …/chat/completions`` (what LM Studio serves, what goose's planner and the local brain ask):
  with ``"stream": true`` server-sent events of ``chat.completion.chunk`` objects, one token each, then
  ``data: [DONE]``; else one ``chat.completion``;
- ``POST …/messages`` (the Anthropic API): with ``"stream": true`` the events ``message_start`` …
  ``content_block_delta`` (one ``text_delta`` per token) … ``message_stop``; else one ``message``;
- ``POST /ack``: see ``gated``;
- ``POST …/barrier`` (``{"name", "parties", "timeout"}``): a meeting point for clients that share nothing but
  this server (two jobs in boxes of their own): the reply waits until ``parties`` requests have arrived at
  ``name`` (or ``timeout`` seconds, default ``ACK_TIMEOUT``) and says how many had (``{"arrived": n}``);
  a client coming later than ``parties`` is answered at once.

Streams go out with ``Transfer-Encoding: chunked``, one chunk per event, flushed at once.  ``tokens``
and ``interval`` (seconds between tokens) shape a reply.  ``gated=True`` holds every token after the
first until the client acknowledges the previous one (``POST /ack``): a client behind anything that
buffers the stream never sees a token before the end, never acknowledges, and the stream stalls —
``stalled`` then says so.  Every request is kept in ``requests`` (path, headers, JSON body).
"""
from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ACK_TIMEOUT = 10.0


class ModelServer:
    def __init__(self, tokens: list[str] | None = None, *, interval: float = 0.0, gated: bool = False,
                 host: str = "127.0.0.1") -> None:
        self.tokens = tokens if tokens is not None else [f"tok{i} " for i in range(8)]
        self.interval = interval
        self.gated = gated
        self.acks = threading.Semaphore(0)
        self.stalled = False
        self.requests: list[dict[str, Any]] = []
        self.arrived: dict[str, int] = {}  # barrier name -> requests that reached it
        self.arrivals = threading.Condition()
        self.server = ThreadingHTTPServer((host, 0), _handler(self))
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> ModelServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def barrier(self, name: str, parties: int, timeout: float) -> int:
        """Count an arrival at ``name`` and wait until ``parties`` have come (or ``timeout``): how many have."""
        with self.arrivals:
            self.arrived[name] = self.arrived.get(name, 0) + 1
            self.arrivals.notify_all()
            self.arrivals.wait_for(lambda: self.arrived[name] >= parties, timeout)
            return self.arrived[name]

    def next_token(self, n: int) -> bool:
        """Wait before token ``n``: the interval, and (gated) the client's acknowledgement of ``n - 1``."""
        if n and self.interval:
            time.sleep(self.interval)
        if n and self.gated and not self.acks.acquire(timeout=ACK_TIMEOUT):
            self.stalled = True
            return False
        return True


def openai_events(server: ModelServer, model: str):
    for n, tok in enumerate(server.tokens):
        if not server.next_token(n):
            return
        yield {"id": "chatcmpl-loop", "object": "chat.completion.chunk", "created": 1767225600, "model": model,
               "choices": [{"index": 0, "delta": {"content": tok}, "finish_reason": None}]}
    yield {"id": "chatcmpl-loop", "object": "chat.completion.chunk", "created": 1767225600, "model": model,
           "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}


def anthropic_events(server: ModelServer, model: str):
    yield "message_start", {"type": "message_start", "message": {
        "id": "msg_loop", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}}
    yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
    for n, tok in enumerate(server.tokens):
        if not server.next_token(n):
            return
        yield "content_block_delta", {"type": "content_block_delta", "index": 0,
                                      "delta": {"type": "text_delta", "text": tok}}
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                            "usage": {"output_tokens": len(server.tokens)}}
    yield "message_stop", {"type": "message_stop"}


def _handler(server: ModelServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a token leaves when written

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            server.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                    "json": body})
            model = str(body.get("model") or "loopback")
            if self.path.rstrip("/").endswith("/ack"):
                server.acks.release()
                return self._json({"ok": True})
            if self.path.rstrip("/").endswith("/barrier"):
                return self._json({"arrived": server.barrier(str(body.get("name", "")), int(body.get("parties", 2)),
                                                             float(body.get("timeout", ACK_TIMEOUT)))})
            if self.path.rstrip("/").endswith("/chat/completions"):
                if body.get("stream"):
                    events = (f"data: {json.dumps(e)}\n\n" for e in openai_events(server, model))
                    return self._stream(itertools.chain(events, ["data: [DONE]\n\n"]))
                text = "".join(server.tokens)
                return self._json({"id": "chatcmpl-loop", "object": "chat.completion", "created": 1767225600,
                                   "model": model, "choices": [{"index": 0, "finish_reason": "stop",
                                                                "message": {"role": "assistant", "content": text}}],
                                   "usage": {"prompt_tokens": 10, "completion_tokens": len(server.tokens)}})
            if self.path.rstrip("/").endswith("/messages"):
                if body.get("stream"):
                    return self._stream(f"event: {kind}\ndata: {json.dumps(e)}\n\n"
                                        for kind, e in anthropic_events(server, model))
                return self._json({"id": "msg_loop", "type": "message", "role": "assistant", "model": model,
                                   "content": [{"type": "text", "text": "".join(server.tokens)}],
                                   "stop_reason": "end_turn", "stop_sequence": None,
                                   "usage": {"input_tokens": 10, "output_tokens": len(server.tokens)}})
            self._json({"error": f"no such path {self.path}"}, 404)

        def _json(self, payload: dict, status: int = 200) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, events) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            try:
                for event in events:
                    data = event.encode()
                    self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                    self.wfile.flush()
                if server.stalled:  # cut the stream: the client must see it broke
                    self.close_connection = True
                    return
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                self.close_connection = True

    return Handler
