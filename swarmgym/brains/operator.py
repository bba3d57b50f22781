"""The ``operator`` brain: you (or an agent such as Claude Code) are the brain, through files.

In ``runs/operator/`` the harness writes ``req-<n>.json`` ``{id, role, system, user, max_tokens, ts}``
and blocks until ``resp-<n>.txt`` appears with non-empty text, polling every
``brain.operator_poll_secs``; ``PENDING.md`` lists the open requests (added on request, removed on
answer or give-up).  While it waits it says on stderr which file it waits for, and where.  After
``brain.operator_timeout_secs`` it marks the request ``timed_out`` and raises a BrainError naming the file.
A reply ``ask_json`` rejects is said on stderr in one line with the reason (:meth:`OperatorBrain.rejected`).
``n`` continues from the highest request number already in the folder — except that a request with the
same role, system and user text as one that timed out reuses that one: a re-run after a timeout picks
up the reply written (late) to its ``resp-<n>.txt``, or goes on waiting for it.
"""
from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from swarmgym.brains.base import Usage
from swarmgym.core.atomic import atomic_write_text
from swarmgym.core.errors import BrainError

if TYPE_CHECKING:
    from swarmgym.config import Config

_REQ = re.compile(r"^req-(\d+)\.json$")
_LOCK = threading.Lock()
HEADER = ("# Pending brain requests\n\nFor each open request read `req-<n>.json` and write your answer "
          "(exactly one JSON object of the asked shape) to `resp-<n>.txt`.\n\n")


REMIND_SECS = 60.0  # how often a waiting operator brain repeats what it waits for


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _same_question(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(a.get(k) == b.get(k) for k in ("role", "system", "user"))


class OperatorBrain:
    name = "operator"

    def __init__(self, cfg: "Config", folder: Path | None = None, say: Callable[[str], None] = _stderr):
        self.cfg = cfg
        self.usage = Usage()
        self.dir = Path(folder or cfg.runs_dir / "operator")
        self.say = say
        self.last_reply: Path | None = None  # the resp-<n>.txt the last answer came from

    def _timed_out_request(self, payload: dict) -> tuple[int, Path] | None:
        """The newest request that timed out asking exactly this (role, system, user) question."""
        if not self.dir.is_dir():
            return None
        found = sorted(((int(m.group(1)), p) for p in self.dir.iterdir() if (m := _REQ.match(p.name))), reverse=True)
        for n, path in found:
            try:
                old = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if isinstance(old, dict) and old.get("timed_out") and _same_question(old, payload):
                return n, path
        return None

    def _mark(self, req: Path, **fields: Any) -> None:
        try:
            data = json.loads(req.read_text())
            atomic_write_text(req, json.dumps({**data, **fields}, indent=2))
        except (OSError, ValueError):
            pass

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
            entries = [e for e in (path.read_text().splitlines() if path.exists() else [])
                       if e.startswith("- [ ] ") and f"req-{n}.json" not in e.split("`")]
            if line:
                entries.append(line)
            atomic_write_text(path, HEADER + ("\n".join(entries) + "\n" if entries else "(none)\n"))

    def rejected(self, role: str, reason: str, tries_left: int) -> None:
        """One line on stderr: which reply was rejected and why (``ask_json`` calls this)."""
        where = self.last_reply.name if self.last_reply else "the reply"
        then = (f"the next request repeats the question with the reason ({tries_left} more "
                f"{'try' if tries_left == 1 else 'tries'})" if tries_left else "no tries left: the session records "
                "the error")
        self.say(f"operator brain: rejected the {role} reply in {where}: {reason}; {then}")

    def complete(self, role: str, system: str, user: str, max_tokens: int | None = None) -> str:
        max_tokens = max_tokens or self.cfg.brain.max_tokens
        payload = {"id": 0, "role": role, "system": system, "user": user, "max_tokens": max_tokens, "ts": time.time()}
        earlier = self._timed_out_request(payload)
        n, req = earlier or self._next_request(payload)
        resp = self.dir / f"resp-{n}.txt"
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
        self._pending(n, f"- [ ] `req-{n}.json` ({role}, {stamp} UTC) → write `resp-{n}.txt`")
        poll, timeout = self.cfg.brain.operator_poll_secs, self.cfg.brain.operator_timeout_secs
        start = time.monotonic()
        deadline, remind = start + timeout, start + REMIND_SECS
        again_note = " (the same request timed out before; its reply is picked up here)" if earlier else ""
        self.say(f"operator brain: waiting for the {role} reply in {resp}{again_note} — read {req.name} "
                 f"(open requests: {self.dir / 'PENDING.md'}); giving up in {timeout:g}s")
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
                        if earlier:
                            self._mark(req, timed_out=None, answered=time.time())
                        self.say(f"operator brain: got the {role} reply from {resp.name}")
                        self.last_reply = resp
                        return text
                now = time.monotonic()
                if now >= deadline:
                    self._mark(req, timed_out=time.time())
                    raise BrainError(f"operator brain: no answer in {resp} after {timeout:g}s (request {req}); "
                                     f"write the reply to {resp.name} and re-run the same command: the same request "
                                     "(same role and text) is then answered from that file")
                if now >= remind:
                    remind = now + REMIND_SECS
                    self.say(f"operator brain: still waiting for {resp} ({now - start:.0f}s of {timeout:g}s)")
                time.sleep(min(poll, max(0.0, deadline - time.monotonic())) or poll)
        finally:
            self._pending(n, None)
