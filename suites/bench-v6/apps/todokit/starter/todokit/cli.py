"""Command line: python3 -m todokit [--file FILE] add|list|done|remove ..."""
from __future__ import annotations

import argparse
import sys

from todokit.store import TodoError, find, load, save


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="todokit", description="A small to-do list kept in a JSON file.")
    p.add_argument("--file", default="todo.json", help="the to-do file (default: todo.json)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add = sub.add_parser("add", help="add a task")
    add.add_argument("text")
    sub.add_parser("list", help="list every task")
    done = sub.add_parser("done", help="mark a task done")
    done.add_argument("id", type=int)
    rm = sub.add_parser("remove", help="delete a task")
    rm.add_argument("id", type=int)
    return p


def line(task: dict) -> str:
    return f"[{'x' if task['done'] else ' '}] {task['id']} {task['text']}"


def cmd_add(path: str, text: str) -> str:
    if not text.strip():
        raise TodoError("the task text is empty")
    data = load(path)
    task = {"id": data["next_id"], "text": text, "done": False}
    data["tasks"].append(task)
    data["next_id"] += 1
    save(path, data)
    return f"added {task['id']}: {text}"


def cmd_list(path: str) -> str:
    tasks = sorted(load(path)["tasks"], key=lambda t: t["id"])
    return "\n".join(line(t) for t in tasks) if tasks else "no tasks"


def cmd_done(path: str, task_id: int) -> str:
    data = load(path)
    task = find(data, task_id)
    if task["done"]:
        raise TodoError(f"task {task_id} is already done")
    task["done"] = True
    save(path, data)
    return f"done {task_id}: {task['text']}"


def cmd_remove(path: str, task_id: int) -> str:
    data = load(path)
    task = find(data, task_id)
    data["tasks"].remove(task)
    save(path, data)
    return f"removed {task_id}: {task['text']}"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "add":
            out = cmd_add(args.file, args.text)
        elif args.command == "list":
            out = cmd_list(args.file)
        elif args.command == "done":
            out = cmd_done(args.file, args.id)
        else:
            out = cmd_remove(args.file, args.id)
    except TodoError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(out)
    return 0
