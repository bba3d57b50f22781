"""todokit's rows of the shared edge classes (issue #30), answered by the reference in gen_v5.py (the old-behaviour
rows by the starter too, which must answer alike).

- ``unicode_space`` (old behaviour): a TEXT of Unicode spaces only (U+00A0, U+3000, U+2003) is blank, an error
  that adds nothing, as the starter's ``str.strip()`` makes it; one framed by them is kept exactly as typed;
  ``edit --text`` (hard) follows "the same rule as for add".
- ``number_form`` (old behaviour): ``done``/``remove`` take the ids the starter takes (``+1``, ``01``: argparse's
  ``int``): "used as before must ... fail exactly where they fail now".
- ``line_end``: a DATE or TAG with a trailing line break is not "exactly YYYY-MM-DD" / 1-20 allowed characters,
  on add, edit and ``list --due-before``; ``search`` looks for WORDS "as one piece", its line break and spaces
  included.
- ``unicode_digit``: a TAG is ASCII letters, ASCII digits, ``-`` and ``_``: ``a٣``, ``x²``, ``３`` are errors.
- ``case``: P is ``low``, ``normal`` or ``high`` "exactly so", also for ``list --priority`` and ``edit``.
- ``error_reach`` / ``calendar``: every bad value on every command taking it (``edit --priority``, ``edit --due``
  with a day that does not exist, ``list --due-before`` with every bad form), each followed by a read that
  shows nothing changed; the century rule of leap years (2100-02-29 is not a date, 2000-02-29 is).
- ``ties``: equal priorities and equal due dates from a file whose tasks are not stored in id order (the starter's
  ``list`` sorts by id, so such a file is a todokit file): each ordering breaks ties by id, ``search`` is in id
  order.

Value errors are ``exit: nonzero`` without an ``error:`` form asked (as bench-v3's rows: argparse ``choices``
is a usage error the prompt allows).  Left out: ids with a trailing newline or non-ASCII digits (the starter's
``int()`` takes them, the README calls a non-whole-number id a usage error: open); a blank ``search`` of Unicode
spaces; the DATE's digits (the prompt says ASCII only for tags).
"""
from __future__ import annotations

import json
from typing import Any

from edges import _step

F = ["--file", "{dir}/todo.json"]
ABSENT = {"{dir}/todo.json": {"absent": True}}


def _row(rid: str, req: list[str], edges: list[str], *steps: dict[str, Any]) -> dict[str, Any]:
    return {"id": rid, "req": req, "edges": edges, "steps": list(steps)}


def ok(*argv: str, stdout: str | None = None, **kw: Any) -> dict[str, Any]:
    return _step([*F, *argv], stdout=stdout, **kw) if stdout is not None else _step([*F, *argv], **kw)


def bad(*argv: str) -> dict[str, Any]:
    """A bad value: a non-zero exit (its form left open); the next step reads that nothing changed."""
    return _step([*F, *argv], "any", exit="nonzero")


def err(*argv: str) -> dict[str, Any]:
    """An error of the starter's form: one ``error:`` line, exit 1."""
    return _step([*F, *argv], "any", exit=1, err="error:")


OLD = [
    _row("blank-unicode-spaces", ["E-OLD-ADD-BLANK"], ["unicode_space"],
         err("add", "\u00a0"), err("add", "\u3000\u2003"), err("add", " \u00a0\t"),
         ok("list", stdout="no tasks\n", files=ABSENT)),
    _row("text-unicode-spaces-kept", ["E-OLD-ADD"], ["unicode_space"],
         ok("add", "\u00a0Buy\u2003milk\u3000", stdout="added 1: \u00a0Buy\u2003milk\u3000\n"),
         ok("list", stdout="[ ] 1 \u00a0Buy\u2003milk\u3000\n")),
    _row("id-number-forms", ["E-OLD-DONE", "E-OLD-REMOVE"], ["number_form"],
         ok("add", "a"), ok("add", "b"), ok("done", "+1", stdout="done 1: a\n"),
         ok("remove", "02", stdout="removed 2: b\n"), ok("list", stdout="[x] 1 a\n")),
]

NEW = [
    _row("due-tag-line-end", ["E-DUE-BAD", "E-TAG-BAD"], ["line_end"],
         bad("add", "a", "--due", "2026-03-01\n"), bad("add", "b", "--due", "2026-03-01\r\n"),
         bad("add", "c", "--tag", "shop\n"), ok("list", stdout="no tasks\n", files=ABSENT)),
    _row("search-words-as-typed", ["E-SEARCH"], ["line_end"],
         ok("add", "Buy milk"), ok("add", "milkshake"), ok("search", "MILK\n", stdout="no tasks\n"),
         ok("search", "milk ", stdout="no tasks\n"), ok("search", " Milk", stdout="[ ] 1 Buy milk\n"),
         ok("search", "y m", stdout="[ ] 1 Buy milk\n")),
    _row("tag-unicode-digits", ["E-TAG-BAD"], ["unicode_digit"],
         bad("add", "a", "--tag", "a٣"), bad("add", "b", "--tag", "x²"), bad("add", "c", "--tag", "３"),
         ok("list", stdout="no tasks\n", files=ABSENT)),
    _row("list-priority-case", ["E-LIST-PRIORITY"], ["case"],
         ok("add", "a", "--priority", "high"), bad("list", "--priority", "High"), bad("list", "--priority", "LOW"),
         ok("list", "--priority", "high", stdout="[ ] 1 a\n")),
]

UNORDERED = json.dumps({"next_id": 6, "tasks": [
    {"id": 5, "text": "Pay rent", "done": False, "priority": "normal", "due": "2026-03-01", "tags": []},
    {"id": 1, "text": "Buy milk", "done": True, "priority": "normal", "due": "2026-03-01", "tags": ["shop"]},
    {"id": 2, "text": "Call mom", "done": False, "priority": "high", "due": None, "tags": []},
    {"id": 4, "text": "Pay bills", "done": False, "priority": "normal", "due": "2026-03-01", "tags": ["shop"]},
    {"id": 3, "text": "Walk", "done": False, "priority": "low", "due": None, "tags": []}]}, indent=2) + "\n"

NEW += [
    _row("due-century-leap", ["E-DUE-BAD", "E-DUE"], ["calendar"],
         bad("add", "a", "--due", "2100-02-29"), bad("add", "b", "--due", "1900-02-29"),
         ok("add", "c", "--due", "2000-02-29", stdout="added 1: c\n"),
         ok("show", "1", stdout="id: 1\ntext: c\ndone: no\npriority: normal\ndue: 2000-02-29\ntags: -\n")),
    {**_row("ties-by-id-from-an-unordered-file", ["E-SORT-PRIORITY", "E-SORT-DUE", "E-SEARCH"], ["ties"],
            ok("list", "--sort", "priority", stdout="[ ] 2 Call mom\n[x] 1 Buy milk\n[ ] 4 Pay bills\n[ ] 5 Pay rent\n"
                                                     "[ ] 3 Walk\n"),
            ok("list", "--sort", "due", stdout="[x] 1 Buy milk\n[ ] 4 Pay bills\n[ ] 5 Pay rent\n[ ] 2 Call mom\n"
                                                "[ ] 3 Walk\n"),
            ok("list", "--pending", "--sort", "priority", stdout="[ ] 2 Call mom\n[ ] 4 Pay bills\n[ ] 5 Pay rent\n"
                                                                 "[ ] 3 Walk\n"),
            ok("list", "--tag", "shop", "--sort", "due", stdout="[x] 1 Buy milk\n[ ] 4 Pay bills\n"),
            ok("search", "pay", stdout="[ ] 4 Pay bills\n[ ] 5 Pay rent\n")),
     "files_in": {"{dir}/todo.json": UNORDERED}},
]

HARD = [
    _row("edit-bad-values", ["E-EDIT-BAD"], ["error_reach", "case"],
         ok("add", "a", "--due", "2026-03-01", "--tag", "x"), bad("edit", "1", "--priority", "urgent"),
         bad("edit", "1", "--priority", "HIGH"), bad("edit", "1", "--due", "2026-3-01"),
         bad("edit", "1", "--tag", "a b"), bad("edit", "1", "--text", "b", "--priority", "Low"),
         ok("show", "1", stdout="id: 1\ntext: a\ndone: no\npriority: normal\ndue: 2026-03-01\ntags: x\n")),
    _row("edit-due-calendar", ["E-EDIT-BAD", "E-EDIT"], ["calendar"],
         ok("add", "a"), bad("edit", "1", "--due", "2026-02-29"), bad("edit", "1", "--due", "2026-04-31"),
         bad("edit", "1", "--due", "2026-13-01"), ok("show", "1"),
         ok("edit", "1", "--due", "2028-02-29", stdout="edited 1: a\n"), ok("show", "1")),
    _row("edit-line-end", ["E-EDIT-BAD"], ["line_end"],
         ok("add", "a"), bad("edit", "1", "--due", "2026-03-01\n"), bad("edit", "1", "--tag", "x\n"), ok("show", "1")),
    _row("edit-unicode", ["E-EDIT-BAD"], ["unicode_space", "unicode_digit"],
         ok("add", "a"), bad("edit", "1", "--text", "\u00a0"), bad("edit", "1", "--text", "\u3000\u2003"),
         bad("edit", "1", "--tag", "b٣"), ok("show", "1")),
    _row("due-before-every-bad-form", ["E-DUE-BEFORE"], ["calendar", "error_reach", "line_end"],
         ok("add", "a", "--due", "2026-02-28"), ok("add", "b", "--due", "2028-02-28"),
         bad("list", "--due-before", "2026-02-29"), bad("list", "--due-before", "2026-04-31"),
         bad("list", "--due-before", "20260301"), bad("list", "--due-before", "2026-3-01"),
         bad("list", "--due-before", "2026-03-01\n"), bad("list", "--due-before", " 2026-03-01"),
         ok("list", "--due-before", "2028-02-29", stdout="[ ] 1 a\n[ ] 2 b\n"),
         ok("list", "--due-before", "2026-03-01", stdout="[ ] 1 a\n")),
]

ROWS: dict[str, list[dict[str, Any]]] = {"todokit-old": OLD, "todokit": NEW, "todokit-hard": HARD}
