"""Command line: python3 -m todokit [--file FILE] COMMAND ..."""
from __future__ import annotations

import argparse
import csv
import sys

from todokit import fields, query
from todokit.store import TodoError, find, load, save


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="todokit", description="A small to-do list kept in a JSON file.")
    p.add_argument("--file", default="todo.json", help="the to-do file (default: todo.json)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add = sub.add_parser("add", help="add a task")
    add.add_argument("text")
    add.add_argument("--priority", default="normal", help="low, normal or high (default normal)")
    add.add_argument("--due", help="due date YYYY-MM-DD")
    add.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    ls = sub.add_parser("list", help="list tasks (every task by default)")
    ls.add_argument("--tag", help="only tasks with this tag")
    ls.add_argument("--priority", help="only tasks with this priority")
    ls.add_argument("--pending", action="store_true", help="only tasks not done")
    ls.add_argument("--due-before", help="only tasks due before this date")
    ls.add_argument("--sort", default="id", help="id (default), priority or due")
    done = sub.add_parser("done", help="mark a task done")
    done.add_argument("id", type=int)
    rm = sub.add_parser("remove", help="delete a task")
    rm.add_argument("id", type=int)
    show = sub.add_parser("show", help="print every field of a task")
    show.add_argument("id", type=int)
    search = sub.add_parser("search", help="tasks whose text contains WORDS (ignoring case)")
    search.add_argument("words")
    edit = sub.add_parser("edit", help="change a task's text, priority, due date or tags")
    edit.add_argument("id", type=int)
    edit.add_argument("--text")
    edit.add_argument("--priority")
    edit.add_argument("--due")
    edit.add_argument("--no-due", action="store_true", help="remove the due date")
    edit.add_argument("--tag", action="append", default=[], help="add a tag (repeatable)")
    edit.add_argument("--untag", action="append", default=[], help="remove a tag (repeatable)")
    sub.add_parser("stats", help="count tasks")
    exp = sub.add_parser("export", help="write the tasks as CSV")
    exp.add_argument("--csv", required=True, metavar="FILE")
    return p


def line(task: dict) -> str:
    return f"[{'x' if task['done'] else ' '}] {task['id']} {task['text']}"


def lines(tasks: list[dict]) -> str:
    return "\n".join(line(t) for t in tasks) if tasks else "no tasks"


def all_tasks(path: str) -> list[dict]:
    return [fields.complete(t) for t in load(path)["tasks"]]


def write(path: str, data: dict) -> None:
    """Save with every task complete (version-1 tasks gain the new fields when the file is written)."""
    data["tasks"] = [fields.complete(t) for t in data["tasks"]]
    save(path, data)


def cmd_add(args: argparse.Namespace) -> str:
    fields.check_text(args.text)
    fields.check_priority(args.priority)
    if args.due is not None:
        fields.check_date(args.due)
    tags = [fields.check_tag(t) for t in args.tag]
    data = load(args.file)
    task = {"id": data["next_id"], "text": args.text, "done": False, "priority": args.priority, "due": args.due,
            "tags": sorted(set(tags))}
    data["tasks"].append(task)
    data["next_id"] += 1
    write(args.file, data)
    return f"added {task['id']}: {args.text}"


def cmd_list(args: argparse.Namespace) -> str:
    if args.priority is not None:
        fields.check_priority(args.priority)
    if args.due_before is not None:
        fields.check_date(args.due_before)
    if args.sort not in query.SORT_KEYS:
        raise TodoError(f"--sort must be one of id, priority, due, not {args.sort!r}")
    chosen = [t for t in all_tasks(args.file) if query.matches(t, tag=args.tag, priority=args.priority,
                                                              pending=args.pending, due_before=args.due_before)]
    return lines(query.ordered(chosen, args.sort))


def cmd_done(args: argparse.Namespace) -> str:
    data = load(args.file)
    task = find(data, args.id)
    if task["done"]:
        raise TodoError(f"task {args.id} is already done")
    task["done"] = True
    write(args.file, data)
    return f"done {args.id}: {task['text']}"


def cmd_remove(args: argparse.Namespace) -> str:
    data = load(args.file)
    task = find(data, args.id)
    data["tasks"].remove(task)
    write(args.file, data)
    return f"removed {args.id}: {task['text']}"


def cmd_show(args: argparse.Namespace) -> str:
    t = fields.complete(find(load(args.file), args.id))
    return "\n".join([f"id: {t['id']}", f"text: {t['text']}", f"done: {'yes' if t['done'] else 'no'}",
                      f"priority: {t['priority']}", f"due: {t['due'] or '-'}",
                      f"tags: {', '.join(t['tags']) or '-'}"])


def cmd_search(args: argparse.Namespace) -> str:
    if not args.words.strip():
        raise TodoError("search needs WORDS")
    return lines(query.search(all_tasks(args.file), args.words))


def cmd_edit(args: argparse.Namespace) -> str:
    if args.text is None and args.priority is None and args.due is None and not args.no_due \
            and not args.tag and not args.untag:
        raise TodoError("edit needs at least one option")
    if args.due is not None and args.no_due:
        raise TodoError("--due and --no-due exclude each other")
    if args.text is not None:
        fields.check_text(args.text)
    if args.priority is not None:
        fields.check_priority(args.priority)
    if args.due is not None:
        fields.check_date(args.due)
    for t in args.tag + args.untag:
        fields.check_tag(t)
    data = load(args.file)
    task = fields.complete(find(data, args.id))
    if args.text is not None:
        task["text"] = args.text
    if args.priority is not None:
        task["priority"] = args.priority
    if args.due is not None or args.no_due:
        task["due"] = args.due
    task["tags"] = sorted((set(task["tags"]) | set(args.tag)) - set(args.untag))
    data["tasks"] = [task if t["id"] == args.id else t for t in data["tasks"]]
    write(args.file, data)
    return f"edited {args.id}: {task['text']}"


def cmd_stats(args: argparse.Namespace) -> str:
    tasks = all_tasks(args.file)
    pending = [t for t in tasks if not t["done"]]
    counts = [("total", len(tasks)), ("done", len(tasks) - len(pending)), ("pending", len(pending))]
    counts += [(p, sum(t["priority"] == p for t in pending)) for p in fields.PRIORITIES]
    return "\n".join(f"{name} {n}" for name, n in counts)


def cmd_export(args: argparse.Namespace) -> str:
    tasks = query.ordered(all_tasks(args.file))
    try:
        with open(args.csv, "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "text", "done", "priority", "due", "tags"])
            for t in tasks:
                w.writerow([t["id"], t["text"], "yes" if t["done"] else "no", t["priority"], t["due"] or "",
                            ";".join(t["tags"])])
    except OSError as e:
        raise TodoError(f"cannot write {args.csv}: {e.strerror}") from None
    return f"exported {len(tasks)} tasks to {args.csv}"


COMMANDS = {"add": cmd_add, "list": cmd_list, "done": cmd_done, "remove": cmd_remove, "show": cmd_show,
            "search": cmd_search, "edit": cmd_edit, "stats": cmd_stats, "export": cmd_export}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        out = COMMANDS[args.command](args)
    except TodoError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(out)
    return 0
