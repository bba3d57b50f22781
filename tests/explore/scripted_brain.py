"""A scripted stand-in for an LLM (the one thing that cannot run here): replies from a list, logs prompts."""
from __future__ import annotations

import json

from swarmgym.brains import Usage


class ScriptedBrain:
    name = "scripted"

    def __init__(self, replies):
        self.replies = [r if isinstance(r, str) else json.dumps(r) for r in replies]
        self.calls: list[dict] = []
        self.usage = Usage()

    def complete(self, role, system, user, max_tokens=None):
        self.calls.append({"role": role, "system": system, "user": user})
        self.usage.add(len(user) // 4, 10)
        if not self.replies:
            raise AssertionError(f"scripted brain ran out of replies at role {role}")
        return self.replies.pop(0)
