"""The fields a task gained in version 2: priority, due date, tags (checks and defaults)."""
from __future__ import annotations

import re
from datetime import date

from todokit.store import TodoError

PRIORITIES = ("high", "normal", "low")  # the --sort priority order
DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
TAG_RE = re.compile(r"[A-Za-z0-9_-]{1,20}")


def check_priority(p: str) -> str:
    if p not in PRIORITIES:
        raise TodoError(f"priority must be one of low, normal, high, not {p!r}")
    return p


def check_date(d: str) -> str:
    if not DATE_RE.fullmatch(d):
        raise TodoError(f"bad date {d!r}: expected YYYY-MM-DD")
    try:
        date(int(d[:4]), int(d[5:7]), int(d[8:]))
    except ValueError:
        raise TodoError(f"bad date {d!r}: no such day") from None
    return d


def check_tag(t: str) -> str:
    if not TAG_RE.fullmatch(t):
        raise TodoError(f"bad tag {t!r}: 1 to 20 ASCII letters, digits, '-' or '_'")
    return t


def check_text(text: str) -> str:
    if not text.strip():
        raise TodoError("the task text is empty")
    return text


def complete(task: dict) -> dict:
    """The task with every field; a task from a version-1 file has no priority, due date or tags."""
    return {"id": task["id"], "text": task["text"], "done": task["done"],
            "priority": task.get("priority", "normal"), "due": task.get("due"),
            "tags": sorted(set(task.get("tags", [])))}
