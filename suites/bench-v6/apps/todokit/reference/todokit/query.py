"""Choosing and ordering tasks: list filters and sort keys, search."""
from __future__ import annotations

from todokit.fields import PRIORITIES

SORT_KEYS = ("id", "priority", "due")


def matches(task: dict, *, tag: str | None = None, priority: str | None = None, pending: bool = False,
            due_before: str | None = None) -> bool:
    """True when the task passes every filter that is set."""
    if tag is not None and tag not in task["tags"]:
        return False
    if priority is not None and task["priority"] != priority:
        return False
    if pending and task["done"]:
        return False
    return due_before is None or (task["due"] is not None and task["due"] < due_before)


def ordered(tasks: list[dict], key: str = "id") -> list[dict]:
    if key == "priority":
        return sorted(tasks, key=lambda t: (PRIORITIES.index(t["priority"]), t["id"]))
    if key == "due":
        return sorted(tasks, key=lambda t: (t["due"] is None, t["due"] or "", t["id"]))
    return sorted(tasks, key=lambda t: t["id"])


def search(tasks: list[dict], words: str) -> list[dict]:
    needle = words.casefold()
    return [t for t in ordered(tasks) if needle in t["text"].casefold()]
