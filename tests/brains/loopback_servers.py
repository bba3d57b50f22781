"""Loopback HTTP servers that speak the Anthropic Messages API and the OpenAI chat API."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Scripted:
    """A loopback server answering POSTs from a script of (status, body, headers) replies."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.requests: list[dict] = []
        script = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                script.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "json": json.loads(body)})
                status, payload, headers = script.replies.pop(0) if script.replies else (500, {"error": "script empty"}, {})
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def anthropic_message(text: str, model: str = "claude-sonnet-5-5", inp: int = 120, out: int = 45) -> dict:
    return {"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": inp, "output_tokens": out}}


def anthropic_error(status: int, kind: str, message: str) -> tuple[int, dict, dict]:
    return status, {"type": "error", "error": {"type": kind, "message": message}}, {"retry-after-ms": "5"}


def chat_completion(text: str, prompt_tokens: int = 200, completion_tokens: int = 900) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1767225600, "model": "qwen3-32b",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


