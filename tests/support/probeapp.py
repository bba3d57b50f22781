"""A small correct app for the ``probe`` kind's tests (package ``tally``), in the output styles a correct
app may use, and the probe checks that grade it.

``tally``: ``python3 -m tally --db FILE add NAME AMOUNT`` / ``list``; ``tally/money.py`` (pure:
``parse_cents``, ``format_cents``, ``split_equal``), ``tally/store.py`` (the only module that runs SQL),
``tally/cli.py`` (argparse), ``tests/test_money.py`` (three passing tests).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from swarmgym.suitekit.suite import Check

MONEY = '''\
def parse_cents(text):
    whole, dot, frac = text.partition(".")
    if not whole.isascii() or not whole.isdigit() or (dot and not (frac.isascii() and frac.isdigit() and len(frac) <= 2)):
        raise ValueError(f"bad amount {text!r}")
    return int(whole) * 100 + int((frac + "00")[:2])


def format_cents(cents):
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def split_equal(total, names):
    base, extra = divmod(total, len(names))
    return {n: base + (1 if i < extra else 0) for i, n in enumerate(sorted(names))}


def pairs(balances):
    return [(a, b) for a, b in sorted(balances.items())]
'''

STORE = '''\
import sqlite3


def connect(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE IF NOT EXISTS entry (name TEXT, cents INTEGER)")
    return con


def add(con, name, cents):
    con.execute("INSERT INTO entry VALUES (?, ?)", (name, cents))


def entries(con):
    return con.execute("SELECT name, cents FROM entry ORDER BY rowid").fetchall()
'''

OUT = {
    "print": "def out(text):\n    print(text)\n",
    "buffer": "def out(text):\n    sys.stdout.buffer.write((text + '\\n').encode('utf-8'))\n    sys.stdout.buffer.flush()\n",
    "oswrite": "def out(text):\n    os.write(1, (text + '\\n').encode('utf-8'))\n",
}

CLI = '''\
import argparse
import os
import sys

from tally import store
from tally.money import format_cents, parse_cents

{out}

def main(argv=None):
    parser = argparse.ArgumentParser(prog="tally")
    parser.add_argument("--db", required=True)
    sub = parser.add_subparsers(dest="cmd", required=True)
    add = sub.add_parser("add")
    add.add_argument("name")
    add.add_argument("amount")
    sub.add_parser("list")
    args = parser.parse_args(argv)
    con = store.connect(args.db)
    if args.cmd == "add":
        try:
            cents = parse_cents(args.amount)
        except ValueError as e:
            print(f"error: {{e}}", file=sys.stderr)
            return 2
        store.add(con, args.name, cents)
        con.commit()
        out(f"added {{args.name}}")
    else:
        for name, cents in store.entries(con):
            out(f"{{name}} {{format_cents(cents)}}")
    con.close()
    return 0
'''

MAIN = {
    "exit": "import sys\n\nfrom tally.cli import main\n\nsys.exit(main())\n",
    "os_exit": "import os\nimport sys\n\nfrom tally.cli import main\n\nstatus = main()\nsys.stdout.flush()\n"
               "sys.stderr.flush()\nos._exit(status or 0)\n",
}

TESTS = '''\
from tally.money import format_cents, parse_cents, split_equal


def test_parse_cents():
    assert parse_cents("12.5") == 1250


def test_format_cents():
    assert format_cents(-5) == "-0.05"


def test_split_equal():
    assert split_equal(1000, ["b", "a", "c"]) == {"a": 334, "b": 333, "c": 333}
'''


def make_app(ws: Path, *, out: str = "print", main: str = "exit") -> Path:
    """Write the correct ``tally`` app into ``ws`` (``out``: print | buffer | oswrite; ``main``: exit |
    os_exit, ``os._exit`` after a flush)."""
    pkg = ws / "tally"
    (ws / "tests").mkdir(parents=True, exist_ok=True)
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(MAIN[main])
    (pkg / "money.py").write_text(MONEY)
    (pkg / "store.py").write_text(STORE)
    (pkg / "cli.py").write_text(CLI.format(out=OUT[out]))
    (ws / "tests" / "test_money.py").write_text(TESTS)
    return ws


def probe(name: str, **mapping: Any) -> Check:
    """A ``kind: probe`` check of that mapping."""
    return Check(name=name, kind="probe", probe=mapping)


def tally_checks() -> list[Check]:
    """One check of every probe type, as a suite would grade ``tally``."""
    return [
        probe("stdlib_only", type="stdlib_only", package="tally"),
        probe("layout", type="layout", files=["tally/__init__.py", "tally/__main__.py", "tests/test_*.py"]),
        probe("money_pure", type="pure", module="tally/money.py", forbid=["sqlite3", "os", "json", "io", "pathlib"],
              package="tally"),
        probe("money_api", type="api", calls=[
            {"call": "tally.money:parse_cents", "args": ["12"], "want": 1200},
            {"call": "tally.money:parse_cents", "args": ["0.07"], "want": 7},
            {"call": "tally.money:parse_cents", "args": ["-1"], "raises": "ValueError"},
            {"call": "tally.money:format_cents", "args": [-5], "want": "-0.05"},
            {"call": "tally.money:split_equal", "args": [1000, ["c", "b", "a"]], "want": {"c": 333, "a": 334, "b": 333}},
            {"call": "tally.money:pairs", "args": [{"b": 2, "a": 1}], "want": [["a", 1], ["b", 2]]}]),
        probe("store_owns_sql", type="sql_owner", package="tally", owner="tally/store.py", db_created=True,
              runs=[["--db", "{db}", "list"], ["--db", "{db}", "add", "Ann", "10"], ["--db", "{db}", "list"]]),
        probe("tests_pass", type="pytest"),
    ]


def tally_suite(folder: Path) -> Path:
    """A one-spec suite folder grading ``tally`` with :func:`tally_checks` (its prompt is not graded)."""
    folder.mkdir(parents=True)
    checks = [{"name": c.name, "kind": "probe", "probe": c.probe.model_dump(exclude_none=True) if c.probe else {}}
              for c in tally_checks()]
    (folder / "suite.yaml").write_text(yaml.safe_dump({"name": "probes-v1", "specs": [{
        "id": "tally", "app_slug": "tally", "prompt": "Build tally.", "hard_prompt": "Build tally.",
        "checks": checks}]}))
    return folder
