"""The ``local`` brain: an OpenAI-compatible ``/v1/chat/completions`` endpoint (LM Studio, llama.cpp).

No key.  Reasoning models think before they answer, so the token budget is large
(``brain.local_max_tokens``) and ``<think>…</think>`` blocks are stripped from the reply.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

import httpx

from swarmgym.brains.base import Usage
from swarmgym.brains.jsonreply import strip_think
from swarmgym.core.errors import BrainError

if TYPE_CHECKING:
    from swarmgym.config import Config


class LocalBrain:
    name = "local"

    def __init__(self, cfg: "Config", *, backoff: float = 1.0, timeout: float = 900.0):
        self.cfg = cfg
        self.usage = Usage()
        self.backoff = backoff
        self.timeout = timeout

    @property
    def url(self) -> str:
        base = self.cfg.brain.local_endpoint.rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"

    def complete(self, role: str, system: str, user: str, max_tokens: int | None = None) -> str:
        body = {"model": self.cfg.brain.local_model,
                "max_tokens": max(self.cfg.brain.local_max_tokens, max_tokens or 0),
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
        tries = max(1, self.cfg.brain.max_retries + 1)
        last = ""
        for attempt in range(tries):
            try:
                r = httpx.post(self.url, json=body, timeout=self.timeout)
            except httpx.HTTPError as e:
                last = f"{type(e).__name__}: {e}"
            else:
                if r.status_code == 200:
                    return self._text(r)
                last = f"HTTP {r.status_code}: {r.text[:200]}"
                if r.status_code < 500 and r.status_code != 429:
                    break
            if attempt + 1 < tries:
                time.sleep(self.backoff * 2 ** attempt)
        raise BrainError(f"brain local ({self.url}): {last}")

    def _text(self, r: httpx.Response) -> str:
        try:
            data = r.json()
            text = data["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError):
            raise BrainError(f"brain local ({self.url}): not a chat completion: {r.text[:200]}") from None
        u = data.get("usage") or {}
        self.usage.add(u.get("prompt_tokens"), u.get("completion_tokens"))
        return strip_think(text)
