"""The ``operator`` brain: you (or an agent such as Claude Code) are the brain, through files.

In ``runs/operator/`` the harness writes ``req-<n>.json`` ``{id, role, system, user, max_tokens, ts}``
and blocks until ``resp-<n>.txt`` appears with non-empty text, polling every
``brain.operator_poll_secs``; ``PENDING.md`` lists the open requests (added on request, removed on
answer or give-up).  After ``brain.operator_timeout_secs`` it raises a BrainError naming the file.
``n`` continues from the highest request number already in the folder.
"""
from __future__ import annotations

import json
import os
import re
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from swarmgym.brains.base import Usage
from swarmgym.errors import BrainError

if TYPE_CHECKING:
    from swarmgym.config import Config

_REQ = re.compile(r"^req-(\d+)\.json$")
_LOCK = threading.Lock()
HEADER = ("# Pending brain requests\n\nFor each open request read `req-<n>.json` and write your answer "
          "(exactly one JSON object of the asked shape) to `resp-<n>.txt`.\n\n")


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


class OperatorBrain:
    name = "operator"

    def __init__(self, cfg: "Config", folder: Path | None = None):
        self.cfg = cfg
        self.usage = Usage()
        self.dir = Path(folder or cfg.runs_dir / "operator")

    # --- requests -------------------------------------------------------------------------
    def _next_request(self, payload: dict) -> tuple[int, Path]:
        self.dir.mkdir(parents=True, exist_ok=True)
        nums = [int(m.group(1)) for p in self.dir.iterdir() if (m := _REQ.match(p.name))]
        n = max(nums, default=0) + 1
        tmp = self.dir / f".req.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            while True:  # link() is atomic and exclusive: readers never see half a request, numbers never clash
                path = self.dir / f"req-{n}.json"
                tmp.write_text(json.dumps({**payload, "id": n}, indent=2))
                try:
                    os.link(tmp, path)
                except FileExistsError:
                    n += 1
                    continue
                return n, path
        finally:
            tmp.unlink(missing_ok=True)

    def _pending(self, n: int, line: str | None) -> None:
        """Add (``line``) or remove (None) request ``n`` in PENDING.md."""
        path = self.dir / "PENDING.md"
        with _LOCK:
            entries = [l for l in (path.read_text().splitlines() if path.exists() else [])
                       if l.startswith("- [ ] ") and f"req-{n}.json" not in l.split("`")]
            if line:
                entries.append(line)
            _atomic_write(path, HEADER + ("\n".join(entries) + "\n" if entries else "(none)\n"))

    def complete(self, role: str, system: str, user: str, max_tokens: int | None = None) -> str:
        max_tokens = max_tokens or self.cfg.brain.max_tokens
        n, req = self._next_request({"id": 0, "role": role, "system": system, "user": user,
                                     "max_tokens": max_tokens, "ts": time.time()})
        resp = self.dir / f"resp-{n}.txt"
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
        self._pending(n, f"- [ ] `req-{n}.json` ({role}, {stamp} UTC) → write `resp-{n}.txt`")
        poll, timeout = self.cfg.brain.operator_poll_secs, self.cfg.brain.operator_timeout_secs
        deadline = time.monotonic() + timeout
        try:
            while True:
                if resp.is_file():
                    text = resp.read_text(errors="replace")
                    if text.strip():
                        time.sleep(min(poll, 0.2))  # let a writer that is still writing finish
                        again = resp.read_text(errors="replace")
                        if again != text:
                            continue
                        self.usage.add(0, 0)  # an operator has no token meter: count the call only
                        return text
                if time.monotonic() >= deadline:
                    raise BrainError(f"operator brain: no answer in {resp} after {timeout:g}s "
                                     f"(request {req}); write the reply there and re-run")
                time.sleep(min(poll, max(0.0, deadline - time.monotonic())) or poll)
        finally:
            self._pending(n, None)
