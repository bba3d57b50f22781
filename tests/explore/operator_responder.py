"""Plays the operator: a thread that answers runs/operator/req-<n>.json by role, like a person would."""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path


class Responder(threading.Thread):
    """``script`` maps a role to a list of replies (str, dict, or callable(request) -> str|dict)."""

    def __init__(self, folder: Path, script: dict[str, list]):
        super().__init__(daemon=True)
        self.folder = Path(folder)
        self.script = {k: list(v) for k, v in script.items()}
        self.seen: list[dict] = []
        self.errors: list[str] = []
        self._halt = threading.Event()

    def run(self) -> None:
        answered: set[str] = set()
        while not self._halt.is_set():
            for req in sorted(self.folder.glob("req-*.json")) if self.folder.is_dir() else []:
                if req.name in answered:
                    continue
                data = json.loads(req.read_text())
                answered.add(req.name)
                self.seen.append(data)
                queue = self.script.get(data["role"]) or []
                if not queue:
                    self.errors.append(f"no scripted answer for {data['role']} ({req.name})")
                    continue
                reply = queue.pop(0)
                reply = reply(data) if callable(reply) else reply
                text = reply if isinstance(reply, str) else "Here is my answer:\n" + json.dumps(reply)
                out = req.with_name(req.name.replace("req-", "resp-").replace(".json", ".txt"))
                tmp = out.with_suffix(".tmp")
                tmp.write_text(text)
                os.replace(tmp, out)
            time.sleep(0.01)

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=5)

    def roles(self) -> list[str]:
        return [d["role"] for d in self.seen]
