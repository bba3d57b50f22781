"""Bounded JSON: parse what the swarm printed in time linear in its size, never a RecursionError.

Everything the swarm writes is read as JSON somewhere (its stdout's RunReport, the event log, the
goose sessions' ``content_json``) and may be hostile: 100,000 ``[`` in a row, megabytes of
unterminated nesting.  :func:`loads` turns every way JSON can fail — too deep included — into a
``ValueError``; :func:`find_report` finds the last outermost object in noisy text with each
character scanned a bounded number of times.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

MAX_DEPTH = 64  # a RunReport nests ~6 deep; nothing legitimate comes near this
_DECODER = json.JSONDecoder()
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_START = re.compile(r'\{\s*["}]')  # where an object can begin: "{" then a key or "}"
MAX_TRIES = 20_000  # candidate objects decoded per text, at most


def too_deep(obj: Any, max_depth: int = MAX_DEPTH) -> bool:
    """Does ``obj`` nest lists/dicts deeper than ``max_depth``?  Iterative: no recursion of its own."""
    stack = [(obj, 1)]
    while stack:
        cur, d = stack.pop()
        if isinstance(cur, dict):
            items: Any = cur.values()
        elif isinstance(cur, list):
            items = cur
        else:
            continue
        if d > max_depth:
            return True
        stack.extend((v, d + 1) for v in items if isinstance(v, (dict, list)))
    return False


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that raises only ``ValueError``: bad JSON, nesting past ``max_depth`` (or past
    what the decoder can take)."""
    try:
        obj = json.loads(text)
    except RecursionError:
        raise ValueError(f"JSON nested deeper than the decoder allows (> {max_depth})") from None
    if too_deep(obj, max_depth):
        raise ValueError(f"JSON nested deeper than {max_depth}")
    return obj


def _skip_nested(text: str, start: int) -> int:
    """The index just after the value that opens at ``start`` (brackets matched, strings skipped), or
    the end of the text when it never closes.  One pass over the span, in C except per bracket."""
    depth = 0
    for m in _TOKENS.finditer(text, start):
        c = m.group()
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth <= 0:
                return m.end()
    return len(text)


def _decode_at(text: str, start: int, max_depth: int) -> tuple[Any, int, int]:
    """Decode the value at ``start``: ``(obj, end, scanned)`` on success, ``(None, resume, scanned)``
    on failure, ``resume`` being where the search may go on (everything before it was inside this
    failed candidate).

    The decoder sees a window that doubles while the failure could be the window's own cut: a
    ``JSONDecodeError`` costs time in its position (it counts the lines before it), so it is only ever
    raised on a short slice — a failure near ``start`` costs what it read, not the whole text."""
    width, scanned = 256, 0
    while True:
        chunk = text[start:start + width]
        try:
            obj, end = _DECODER.raw_decode(chunk)
            return obj, start + end, scanned + end
        except json.JSONDecodeError as e:
            cut = start + width < len(text) and (e.pos >= len(chunk) - 16 or e.msg.startswith("Unterminated string"))
            if cut:
                scanned += len(chunk)
                width *= 2
                continue
            return None, start + max(e.pos, 1), scanned + e.pos + 1
        except RecursionError:  # nested past the decoder: skip to its closing bracket (or the end)
            end = _skip_nested(text, start)
            return None, max(end, start + 1), scanned + end - start


def find_report(text: str, wanted: Callable[[Any], bool], max_depth: int = MAX_DEPTH) -> dict[str, Any] | None:
    """The last *outermost* JSON object in ``text`` for which ``wanted(obj)`` holds (``text`` itself
    first, if it is one object).  Objects inside another object are never candidates; a truncated one
    is no object at all.

    Linear: after a candidate fails, the search goes on where the decoder stopped (anything between
    was inside the failed candidate); a candidate nested too deep for the decoder is skipped to its
    matching bracket in one pass; only a ``{`` followed by a key (or ``}``) is tried, at most
    :data:`MAX_TRIES` of them, and the decoder's total work is capped at a few times the text's
    length (past either cap the search stops with what it found) — 8 MB of unterminated nesting
    costs one scan, not one per ``{``."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        whole = loads(text, max_depth)
        if isinstance(whole, dict):
            return whole
    except ValueError:
        pass
    found = None
    pos, budget = 0, 4 * len(text) + (1 << 16)
    for _ in range(MAX_TRIES):
        m = _START.search(text, pos)
        if m is None or budget <= 0:
            break
        start = m.start()
        obj, pos, scanned = _decode_at(text, start, max_depth)
        budget -= scanned
        if isinstance(obj, dict) and not too_deep(obj, max_depth) and wanted(obj):
            found = obj  # and ``pos`` is past it: nothing inside an object is a candidate
    return found
