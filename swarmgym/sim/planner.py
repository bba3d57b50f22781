"""The simulator's one real model call: goose's planner request, when goose's config names an endpoint.

goose sets ``LMSTUDIO_HOST`` from its pool config's ``swarm.endpoint`` and asks the planner model
there (LM Studio's OpenAI-style ``/v1/chat/completions``, streamed).  The simulator does the same when
the goose config it runs with names an endpoint (:func:`swarmgym.collect.goose_config.pool_endpoint`):
one streamed chat completion, read event by event as it arrives, with ``LMSTUDIO_API_KEY`` as a
Bearer token when the environment holds one (in a bubblewrap box it does not: the forwarder adds it).
So a simulated job exercises the swarm box's network for real; with no endpoint named it calls
nothing and stays byte-for-byte reproducible.  A failed call is goose's failed plan: the run stops.
"""
from __future__ import annotations

import http.client
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

TIMEOUT = 60.0


@dataclass
class PlannerReply:
    text: str
    chunks: int
    bytes: int
    first_chunk_secs: float


def completions_path(endpoint: str) -> tuple[str, str]:
    """(``scheme://host:port``, path) of the chat-completions URL under ``endpoint`` (with or without ``/v1``)."""
    parts = urlsplit(endpoint if "://" in endpoint else "http://" + endpoint)
    base = parts.path.rstrip("/")
    path = f"{base}/chat/completions" if base.endswith("/v1") else f"{base}/v1/chat/completions"
    return f"{parts.scheme}://{parts.netloc}", path


def ask_planner(endpoint: str, model: str, prompt: str, env: Mapping[str, str], timeout: float = TIMEOUT) -> PlannerReply:
    """Stream one planner completion from ``endpoint``; OSError or ValueError (one line) if it fails."""
    origin, path = completions_path(endpoint)
    parts = urlsplit(origin)
    conn_cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = conn_cls(parts.hostname or "localhost", parts.port, timeout=timeout)
    body = json.dumps({"model": model, "stream": True, "messages": [
        {"role": "system", "content": "You plan a coding swarm's work as tasks."},
        {"role": "user", "content": prompt}]})
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    if env.get("LMSTUDIO_API_KEY"):
        headers["authorization"] = f"Bearer {env['LMSTUDIO_API_KEY']}"
    start = time.monotonic()
    try:
        conn.request("POST", path, body=body, headers=headers)
        resp = conn.getresponse()
        if resp.status != 200:
            raise ValueError(f"HTTP {resp.status}: {resp.read(200).decode('utf-8', 'replace')}")
        text, chunks, size, first = [], 0, 0, None
        for raw in iter(resp.readline, b""):
            size += len(raw)
            line = raw.strip()
            if not line.startswith(b"data:"):
                continue
            data = line[5:].strip()
            if data == b"[DONE]":
                break
            delta = (json.loads(data).get("choices") or [{}])[0].get("delta") or {}
            if delta.get("content"):  # a token (the last chunk only says why it stopped)
                first = time.monotonic() - start if first is None else first
                chunks += 1
                text.append(delta["content"])
        return PlannerReply("".join(text), chunks, size, first or 0.0)
    finally:
        conn.close()
