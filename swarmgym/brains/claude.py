"""The ``claude`` brain: the Anthropic Messages API through the official SDK.

The generator model answers every role but ``judge``, which gets the (stronger) judge model.
Overload (529), 5xx, rate limits and connection failures are retried twice over: by the SDK
(``max_retries``, honouring ``retry-after``) and by a bounded loop with exponential backoff here.
"""
from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from swarmgym.brains.base import Usage
from swarmgym.core.errors import BrainError

if TYPE_CHECKING:
    from swarmgym.config import Config


def _sdk():
    try:
        import anthropic
    except ImportError:  # pragma: no cover - anthropic is a declared dependency
        raise BrainError("brain claude needs the Anthropic SDK: pip install anthropic") from None
    return anthropic


def _retryable(anthropic, err: Exception) -> bool:
    if isinstance(err, (anthropic.APIConnectionError, anthropic.RateLimitError)):
        return True
    if isinstance(err, anthropic.APIStatusError):
        return err.status_code == 429 or err.status_code >= 500
    return False


class ClaudeBrain:
    name = "claude"

    def __init__(self, cfg: "Config", *, backoff: float = 2.0, loops: int = 3):
        self.cfg = cfg
        self.usage = Usage()
        self.backoff = backoff
        self.loops = loops
        self._client = None

    def model_for(self, role: str) -> str:
        return self.cfg.brain.judge_model if role == "judge" else self.cfg.brain.generator_model

    def client(self):
        if self._client is None:
            anthropic = _sdk()
            key = os.environ.get("ANTHROPIC_API_KEY")
            if not key:
                raise BrainError("brain claude: ANTHROPIC_API_KEY is not set in the environment "
                                 "(or use SWARMGYM_BRAIN_PROVIDER=operator / local)")
            base = self.cfg.brain.anthropic_base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
            self._client = anthropic.Anthropic(api_key=key, base_url=base, max_retries=self.cfg.brain.max_retries,
                                               timeout=600.0)
        return self._client

    def complete(self, role: str, system: str, user: str, max_tokens: int | None = None) -> str:
        anthropic = _sdk()
        client = self.client()
        model = self.model_for(role)
        last: Exception | None = None
        for attempt in range(self.loops):
            try:
                msg = client.messages.create(model=model, max_tokens=max_tokens or self.cfg.brain.max_tokens,
                                             system=system, messages=[{"role": "user", "content": user}])
            except anthropic.APIError as e:
                if not _retryable(anthropic, e):
                    raise BrainError(f"brain claude ({model}): {type(e).__name__}: {str(e)[:300]}") from None
                last = e
                if attempt + 1 < self.loops:
                    time.sleep(self.backoff * 2 ** attempt)
                continue
            u = getattr(msg, "usage", None)
            self.usage.add(getattr(u, "input_tokens", 0), getattr(u, "output_tokens", 0))
            return "".join(getattr(b, "text", "") for b in msg.content if getattr(b, "type", "") == "text")
        raise BrainError(f"brain claude ({model}): gave up after {self.loops} rounds of retries: "
                         f"{type(last).__name__}: {str(last)[:300]}")
