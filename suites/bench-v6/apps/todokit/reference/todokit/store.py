"""The to-do file: load and save the tasks as JSON."""
from __future__ import annotations

import json
import os


class TodoError(Exception):
    """A request todokit refuses; the message is printed after ``error:``."""


def empty() -> dict:
    return {"next_id": 1, "tasks": []}


def load(path: str) -> dict:
    """The file's data; a file that does not exist yet is an empty list."""
    if not os.path.exists(path):
        return empty()
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        raise TodoError(f"{path} is not a todokit file") from None
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list) or not isinstance(data.get("next_id"), int):
        raise TodoError(f"{path} is not a todokit file")
    return data


def save(path: str, data: dict) -> None:
    """Write the file whole (a temporary file renamed over it, so a crash never leaves half a file)."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, path)


def find(data: dict, task_id: int) -> dict:
    for task in data["tasks"]:
        if task["id"] == task_id:
            return task
    raise TodoError(f"no task {task_id}")
