"""Golden tables for todokit (spec extend, seed 2026): the starter's old commands and the new features.

Three tables: ``todokit-old`` (the old commands used as before: the starter itself passes it, so it
grades "broke what worked" apart from "added nothing"), ``todokit`` (the new options and commands, and
files the starter wrote) and ``todokit-hard``.  Every step is its own process on a fresh ``{dir}``.
Review built in: each sequence is replayed on :class:`Model`, written here from the prompt and the
starter's README, and the reference's exit status, stdout and files must equal the model's.  Run from
the repository root: ``python3 suites/bench-v3/gen/gen_todokit.py``.
"""
from __future__ import annotations

import json
import re
import shlex
from datetime import date
from pathlib import Path

from swarmgym.suitekit.tablegen import answer, row, step, write

SUITE = Path(__file__).resolve().parent.parent
APP = SUITE / "apps" / "todokit"
SEED = 2026
FILE = "{dir}/todo.json"
PRIO = ["high", "normal", "low"]


def good_date(d: str) -> bool:
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", d):
        return False
    try:
        date(int(d[:4]), int(d[5:7]), int(d[8:]))
    except ValueError:
        return False
    return True


def good_tag(t: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9_-]{1,20}", t) is not None


class Model:
    """The prompt's todokit: ``run(argv) -> (exit, stdout)``; ``data`` is what the file must hold."""

    def __init__(self, data: dict | None = None) -> None:
        self.data = data  # None: no file yet
        self.bad = False  # the file is not a todokit file: every command is an error

    def tasks(self) -> list[dict]:
        return [{"priority": "normal", "due": None, "tags": [], **t} for t in (self.data or {"tasks": []})["tasks"]]

    def save(self, tasks: list[dict]) -> None:
        assert self.data is not None
        self.data["tasks"] = [{k: t[k] for k in ("id", "text", "done", "priority", "due", "tags")} for t in tasks]

    @staticmethod
    def line(t: dict) -> str:
        return f"[{'x' if t['done'] else ' '}] {t['id']} {t['text']}"

    def lines(self, tasks: list[dict]) -> str:
        return "".join(self.line(t) + "\n" for t in tasks) or "no tasks\n"

    def run(self, argv: list[str]) -> tuple[int, str]:  # noqa: C901 - one branch per command, as the prompt lists them
        cmd, rest = argv[0], argv[1:]
        if self.bad:
            return 1, ""
        opts: dict[str, list[str]] = {}
        pos: list[str] = []
        i = 0
        while i < len(rest):
            if rest[i] in ("--pending", "--no-due"):
                opts.setdefault(rest[i][2:], []).append("")
                i += 1
            elif rest[i].startswith("--"):
                opts.setdefault(rest[i][2:], []).append(rest[i + 1])
                i += 2
            else:
                pos.append(rest[i])
                i += 1
        one = {k: v[-1] for k, v in opts.items()}
        tasks = self.tasks()
        by_id = {t["id"]: t for t in tasks}
        if cmd == "add":
            text, prio, due, tags = pos[0], one.get("priority", "normal"), one.get("due"), opts.get("tag", [])
            if not text.strip() or prio not in PRIO or (due is not None and not good_date(due)) \
                    or not all(map(good_tag, tags)):
                return 1, ""
            self.data = self.data or {"next_id": 1, "tasks": []}
            nid = self.data["next_id"]
            self.data["next_id"] += 1
            self.save([*tasks, {"id": nid, "text": text, "done": False, "priority": prio, "due": due,
                                "tags": sorted(set(tags))}])
            return 0, f"added {nid}: {text}\n"
        if cmd in ("done", "remove", "show", "edit"):
            t = by_id.get(int(pos[0]))
            if t is None:
                return 1, ""
            if cmd == "done":
                if t["done"]:
                    return 1, ""
                t["done"] = True
                self.save(tasks)
                return 0, f"done {t['id']}: {t['text']}\n"
            if cmd == "remove":
                self.save([x for x in tasks if x is not t])
                return 0, f"removed {t['id']}: {t['text']}\n"
            if cmd == "show":
                return 0, (f"id: {t['id']}\ntext: {t['text']}\ndone: {'yes' if t['done'] else 'no'}\n"
                           f"priority: {t['priority']}\ndue: {t['due'] or '-'}\ntags: {', '.join(t['tags']) or '-'}\n")
            if not opts or ("due" in opts and "no-due" in opts):
                return 1, ""
            if ("text" in one and not one["text"].strip()) or one.get("priority", "normal") not in PRIO \
                    or ("due" in one and not good_date(one["due"])) \
                    or not all(map(good_tag, opts.get("tag", []) + opts.get("untag", []))):
                return 1, ""
            t["text"] = one.get("text", t["text"])
            t["priority"] = one.get("priority", t["priority"])
            t["due"] = None if "no-due" in opts else one.get("due", t["due"])
            t["tags"] = sorted((set(t["tags"]) | set(opts.get("tag", []))) - set(opts.get("untag", [])))
            self.save(tasks)
            return 0, f"edited {t['id']}: {t['text']}\n"
        if cmd == "list":
            key, prio, before = one.get("sort", "id"), one.get("priority"), one.get("due-before")
            if key not in ("id", "priority", "due") or (prio is not None and prio not in PRIO) \
                    or (before is not None and not good_date(before)):
                return 1, ""
            chosen = [t for t in tasks if ("tag" not in one or one["tag"] in t["tags"])
                      and (prio is None or t["priority"] == prio) and ("pending" not in opts or not t["done"])
                      and (before is None or (t["due"] is not None and t["due"] < before))]
            sort = {"id": lambda t: t["id"], "priority": lambda t: (PRIO.index(t["priority"]), t["id"]),
                    "due": lambda t: (t["due"] is None, t["due"] or "", t["id"])}[key]
            return 0, self.lines(sorted(chosen, key=sort))
        if cmd == "search":
            if not pos[0].strip():
                return 1, ""
            return 0, self.lines(sorted((t for t in tasks if pos[0].casefold() in t["text"].casefold()),
                                        key=lambda t: t["id"]))
        if cmd == "stats":
            pend = [t for t in tasks if not t["done"]]
            counts = [len(tasks), len(tasks) - len(pend), len(pend), *(sum(t["priority"] == p for t in pend) for p in PRIO)]
            return 0, "".join(f"{n} {c}\n" for n, c in zip(["total", "done", "pending", *PRIO], counts))
        if cmd == "export":
            return 0, ""
        raise ValueError(f"model: unknown command {argv}")

    def csv_rows(self) -> list[list[str]]:
        return [["id", "text", "done", "priority", "due", "tags"]] + [
            [str(t["id"]), t["text"], "yes" if t["done"] else "no", t["priority"], t["due"] or "", ";".join(t["tags"])]
            for t in sorted(self.tasks(), key=lambda t: t["id"])]


def seq(row_id: str, req: list[str], edges: list[str], cmds: list, *, usage: tuple[int, ...] = (),
        files_in: dict | None = None, file_at: tuple[int, ...] = ()) -> dict:
    """A row: commands (shell words or argv lists) against FILE, each reviewed by the model.

    ``usage``: steps whose failure the prompt leaves to argparse (any non-zero exit, nothing changes).
    ``file_at``: steps after which the to-do file is compared (as JSON, or absent).
    """
    start = None
    if files_in and FILE in files_in:
        try:
            start = json.loads(files_in[FILE])
        except ValueError:
            start = "not a todokit file"
    m, steps = Model(start if isinstance(start, dict) else None), []
    m.bad = start is not None and not isinstance(start, dict)
    for n, c in enumerate(cmds):
        argv = shlex.split(c) if isinstance(c, str) else list(c)
        full = ["--file", FILE, *argv]
        if n in usage:
            steps.append(step(full, usage=True))
            continue
        code, out = m.run(argv)
        files: dict[str, str] = {}
        expect = (lambda want: lambda got: got == want)(out)
        if n in file_at:
            files[FILE] = "json"
        if argv[0] == "export" and code == 0:
            files[argv[-1]] = "csv"
            rows = m.csv_rows()
            outfile = argv[-1]
        st = step(full, out="any" if argv[0] == "export" else "exact", expect_exit=code,
                  expect=None if argv[0] == "export" else expect, files=files)
        st["_model_file"] = None if m.data is None or m.bad else json.loads(json.dumps(m.data))
        if argv[0] == "export" and code == 0:
            st["_model_csv"] = (outfile, rows)
        steps.append(st)
    return row(row_id, req, edges, *steps, files_in=files_in)


def old_file(tasks: list[tuple[int, str, bool]], next_id: int) -> str:
    """A file as the starter writes it (indent 2, UTF-8, no new keys)."""
    data = {"next_id": next_id, "tasks": [{"id": i, "text": t, "done": d} for i, t, d in tasks]}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


OLD = old_file([(1, "Buy milk", True), (2, "Call mom", False), (5, "Pay rent", False)], 7)
ERR = ["E-ERRORS"]

OLD_ROWS = [
    seq("basic", ["E-OLD-ADD", "E-OLD-LIST", "E-OLD-DONE", "E-OLD-REMOVE"], [],
        ['add "Buy milk"', 'add "Call mom"', "done 1", "list", "remove 1", "list"]),
    seq("texts", ["E-OLD-ADD"], ["unicode", "quote"],
        ['add "Café ☕ 東京"', "add 'say \"hi\"'", 'add "it\'s done"', "list"]),
    seq("text-spaces", ["E-OLD-ADD"], ["whitespace"],
        [["add", "  two  spaces  "], ["add", "tab\there"], "list"]),
    seq("blank", ["E-OLD-ADD-BLANK", *ERR], ["empty", "whitespace"],
        [["add", ""], ["add", "   "], ["add", "\t\n"], "list"], file_at=(3,)),
    seq("no-file", ["E-OLD-NOFILE", "E-OLD-LIST"], ["empty"], ["list"], file_at=(0,)),
    seq("by-id", ["E-OLD-LIST"], ["order"], ["list"],
        files_in={FILE: old_file([(5, "Pay rent", False), (1, "Buy milk", True), (2, "Call mom", False)], 7)}),
    seq("done-twice", ["E-OLD-DONE", *ERR], ["duplicate"], ['add "a"', "done 1", "done 1", "list"]),
    seq("ids-newest-removed", ["E-OLD-IDS"], ["boundary"],
        ['add "a"', 'add "b"', "remove 2", 'add "c"', "remove 1", "remove 3", 'add "d"', "list"]),
    seq("unknown-ids", ["E-OLD-UNKNOWN", *ERR], ["zero", "negative"],
        ['add "a"', 'add "b"', "done 0", "remove 0", "done -1", "remove -2", "done 3", "remove 9", "list"]),
    seq("bad-id", ["E-OLD-UNKNOWN"], [], ['add "a"', "done one", "remove 1.5", "list"], usage=(1, 2)),
    seq("bad-file", ["E-OLD-BADFILE", *ERR], [], ["list", 'add "x"', "done 1"], files_in={FILE: "not json\n"}),
    seq("bad-file-shape", ["E-OLD-BADFILE"], [], ["list", 'add "x"'], files_in={FILE: "[1, 2]\n"}),
    seq("starter-file", ["E-OLD-ADD", "E-OLD-IDS", "E-OLD-LIST", "E-OLD-DONE", "E-OLD-REMOVE"], [],
        ['add "Water plants"', "done 2", "remove 5", "list", "done 1"], files_in={FILE: OLD}),
]

NEW_ROWS = [
    seq("accept", ["E-ACCEPT", "E-PRIORITY", "E-DUE", "E-TAG", "E-LIST-TAG", "E-SORT-PRIORITY", "E-SHOW", "E-SEARCH"],
        [], ['add "Buy milk" --tag shop', 'add "Call mom" --priority high --due 2026-03-01',
             'add "Pay rent" --priority low', "list", "list --sort priority", "list --tag shop", "show 2",
             "search MOM"]),
    seq("file-keys", ["E-FILE-KEYS", "E-OLD-FORMAT", "E-TAG"], ["duplicate", "order"],
        ['add "Buy milk" --tag shop --tag errand --tag shop', 'add "Call mom" --priority high --due 2026-03-01',
         "done 1", "remove 2", 'add "Pay rent" --priority low --tag b --tag a'], file_at=(0, 2, 4)),
    seq("priority-default", ["E-PRIORITY"], ["missing"], ['add "a"', "show 1", "list --priority normal"]),
    seq("priority-bad", ["E-PRIORITY-BAD", *ERR], [],
        ['add "a" --priority High', 'add "b" --priority urgent', 'add "c" --priority ""', "list"],
        usage=(0, 1, 2), file_at=(3,)),
    seq("due-leap", ["E-DUE"], ["boundary"], ['add "a" --due 2028-02-29', 'add "b" --due 2026-12-31', "show 1",
                                              "show 2"]),
    seq("due-calendar", ["E-DUE-BAD"], ["boundary"],
        ['add "a" --due 2026-02-29', 'add "b" --due 2026-04-31', 'add "c" --due 2026-13-01',
         'add "d" --due 2026-00-10', "list"], usage=(0, 1, 2, 3), file_at=(4,)),
    seq("due-space", ["E-DUE-BAD"], ["whitespace"],
        [["add", "a", "--due", " 2026-03-01"], ["add", "b", "--due", "2026-03-01 "], ["add", "c", "--due", "2026 03 01"],
         "list"], usage=(0, 1, 2)),
    seq("due-extra", ["E-DUE-BAD"], ["extra"],
        ['add "a" --due 2026-03-01T10:00', 'add "b" --due 2026-03-011', 'add "c" --due 20260301', "list"],
        usage=(0, 1, 2)),
    seq("due-unpadded", ["E-DUE-BAD"], [], ['add "a" --due 2026-3-01', 'add "b" --due 2026-03-1', "list"],
        usage=(0, 1)),
    seq("tag-case", ["E-TAG"], [], ['add "a" --tag Home --tag home --tag HOME', "show 1", "list --tag home",
                                    "list --tag Home"]),
    seq("tag-bad-empty", ["E-TAG-BAD"], ["empty"], ['add "a" --tag ""', "list"], usage=(0,)),
    seq("tag-bad-separator", ["E-TAG-BAD"], ["separator"], ['add "a" --tag a,b', 'add "b" --tag "a;b"', "list"],
        usage=(0, 1)),
    seq("tag-bad-unicode", ["E-TAG-BAD"], ["unicode"], ['add "a" --tag café', 'add "b" --tag 家', "list"],
        usage=(0, 1)),
    seq("tag-bad-length", ["E-TAG-BAD"], ["boundary"],
        [f'add "a" --tag {"t" * 21}', f'add "b" --tag {"t" * 20}', "show 1"], usage=(0,)),
    seq("tag-bad-space", ["E-TAG-BAD"], [], ['add "a" --tag "a b"', "list"], usage=(0,)),
    seq("compat", ["E-COMPAT"], ["missing"],
        ["list --priority normal", "list --tag x", "show 2", "list --sort due", 'add "New" --priority high',
         "list --sort priority"], files_in={FILE: OLD}, file_at=(4,)),
    seq("compat-read-only", ["E-COMPAT", "E-OLD-FORMAT"], [], ["show 1", "list --pending", "search mom"],
        files_in={FILE: OLD}, file_at=(2,)),
    seq("list-filters", ["E-LIST-TAG", "E-LIST-PRIORITY", "E-LIST-PENDING"], [],
        ['add "a" --tag x', 'add "b" --tag y --priority high', 'add "c" --tag x --tag y --priority low', "done 3",
         "list --tag y", "list --priority low", "list --pending", "list --tag Y"]),
    seq("list-all", ["E-LIST-ALL"], [],
        ['add "a" --tag x --priority high', 'add "b" --tag x', 'add "c" --priority high', 'add "d" --tag x --priority high',
         "done 4", "list --tag x --priority high", "list --tag x --priority high --pending",
         "list --pending --sort priority"]),
    seq("list-none", ["E-LIST-NONE"], ["empty"],
        ["list --tag x", 'add "a" --tag x', "done 1", "list --pending", "list --priority low", "list --tag z"]),
    seq("list-priority-bad", ["E-LIST-PRIORITY"], [], ['add "a"', "list --priority urgent"], usage=(1,)),
    seq("sort-priority", ["E-SORT-PRIORITY"], ["order"],
        ['add "a" --priority low', 'add "b" --priority high', 'add "c"', 'add "d" --priority high',
         'add "e" --priority low', "list --sort priority", "list --sort id"]),
    seq("sort-due", ["E-SORT-DUE"], ["missing", "order"],
        ['add "a"', 'add "zeta" --due 2026-05-01', 'add "c" --due 2026-01-15', 'add "d"', 'add "alpha" --due 2026-05-01',
         'add "f" --due 2025-12-31', "list --sort due"]),
    seq("sort-bad", ["E-SORT-BAD"], [], ['add "a"', "list --sort name", "list --sort Priority"], usage=(1, 2)),
    seq("show-done", ["E-SHOW"], [], ['add "Call mom" --priority high --due 2026-03-01 --tag phone --tag family',
                                      "done 1", "show 1"]),
    seq("show-unknown", ["E-SHOW-UNKNOWN", *ERR], [], ["show 1", 'add "a"', "show 2", "show 0"]),
    seq("search-casefold", ["E-SEARCH"], ["unicode"],
        ['add "Straße fegen"', 'add "École"', 'add "buy milk"', "search STRASSE", "search école", "search MILK"]),
    seq("search-piece", ["E-SEARCH"], ["whitespace"],
        ['add "Buy milk today"', 'add "milk for today"', 'add "today milk"', 'search "milk today"', "search milk"]),
    seq("search-none", ["E-SEARCH"], [], ['add "a"', "search zzz", "search A"]),
    seq("search-blank", ["E-SEARCH-BLANK", *ERR], ["empty", "whitespace"],
        ['add "a"', ["search", ""], ["search", "  "], ["search", "\t"]]),
]

HARD_ROWS = [
    seq("accept-hard", ["E-ACCEPT-HARD", "E-STATS", "E-EXPORT"], [],
        ['add "Buy milk" --tag shop', 'add "Call mom" --priority high --due 2026-03-01', 'add "Pay rent" --priority low',
         "done 1", "stats", "export --csv {dir}/out.csv"]),
    seq("due-before", ["E-DUE-BEFORE"], ["boundary"],
        ['add "a" --due 2026-03-01', 'add "b" --due 2026-03-02', 'add "c"', 'add "d" --due 2025-12-31', "done 4",
         "list --due-before 2026-03-02", "list --due-before 2026-03-01", "list --due-before 2026-03-01 --pending",
         "list --due-before 2025-01-01"]),
    seq("due-before-bad", ["E-DUE-BEFORE"], [], ['add "a" --due 2026-03-01', "list --due-before 2026-02-30"],
        usage=(1,)),
    seq("edit", ["E-EDIT"], [],
        ['add "Buy milk" --tag shop --due 2026-03-01', 'edit 1 --text "Buy oat milk" --priority high',
         "edit 1 --no-due --tag errand --untag shop", "show 1", "edit 1 --due 2026-04-01", "show 1"], file_at=(5,)),
    seq("edit-tag-again", ["E-EDIT"], ["duplicate"], ['add "a" --tag x', "edit 1 --tag x --tag y --tag x", "show 1"]),
    seq("edit-untag-absent", ["E-EDIT"], ["missing"], ['add "a" --tag x', "edit 1 --untag nope", "show 1"]),
    seq("edit-old-file", ["E-EDIT", "E-COMPAT"], [], ["edit 2 --priority low", "show 2"], files_in={FILE: OLD},
        file_at=(0,)),
    seq("edit-no-option", ["E-EDIT-BAD"], ["missing"], ['add "a"', "edit 1", "show 1"], usage=(1,)),
    seq("edit-blank-text", ["E-EDIT-BAD"], ["whitespace"], ['add "a"', ["edit", "1", "--text", "  "], "show 1"],
        usage=(1,)),
    seq("edit-due-both", ["E-EDIT-BAD"], [], ['add "a" --due 2026-03-01', "edit 1 --due 2026-04-01 --no-due", "show 1"],
        usage=(1,)),
    seq("edit-unknown", ["E-EDIT-BAD"], [], ['add "a"', 'edit 2 --text "b"', "list"]),
    seq("stats-empty", ["E-STATS"], ["empty"], ["stats"]),
    seq("stats-zero", ["E-STATS"], ["zero"],
        ['add "a" --priority high', 'add "b" --priority high', 'add "c"', "done 3", "stats"]),
    seq("export-quoting", ["E-EXPORT"], ["separator", "quote"],
        ['add "Buy milk, eggs" --tag shop --tag food', "add 'Say \"hi\"'", 'add "Café, \\"ok\\""', "done 2",
         "export --csv {dir}/out.csv"]),
    seq("export-old-file", ["E-EXPORT", "E-COMPAT"], [], ["export --csv {dir}/out.csv"], files_in={FILE: OLD}),
]


def review_files(golden: list[dict], rows: list[dict]) -> None:
    """The files the reference wrote must be the model's (JSON data, CSV rows, or absent)."""
    for g, r in zip(golden, rows):
        for gs, rs in zip(g["steps"], r["steps"]):
            for path, got in (gs.get("files") or {}).items():
                if path == FILE:
                    want = {"absent": True} if rs["_model_file"] is None else {"json": rs["_model_file"]}
                else:
                    want = {"csv": rs["_model_csv"][1]}
                if got != want:
                    raise SystemExit(f"row {g['id']}: {path}: the reference wrote {got}, the model wants {want}")


def table(rows: list[dict], reference: Path) -> list[dict]:
    clean = [{**r, "steps": [{k: v for k, v in s.items() if not k.startswith("_model")} for s in r["steps"]]}
             for r in rows]
    golden = answer(reference, "todokit", clean)
    review_files(golden, rows)
    return golden


def main() -> None:
    old = table(OLD_ROWS, APP / "reference")
    # the old-behaviour table is the behaviour the prompt says to keep: the starter must answer it alike
    if (starter := table(OLD_ROWS, APP / "starter")) != old:
        differ = [a["id"] for a, b in zip(old, starter) if a != b]
        raise SystemExit(f"the starter and the reference answer old-behaviour rows differently: {differ}")
    write(SUITE, "todokit-old", old, seed=SEED, generator="gen/gen_todokit.py")
    write(SUITE, "todokit", table(NEW_ROWS, APP / "reference"), seed=SEED, generator="gen/gen_todokit.py")
    write(SUITE, "todokit-hard", table(HARD_ROWS, APP / "reference"), seed=SEED, generator="gen/gen_todokit.py")


if __name__ == "__main__":
    main()
