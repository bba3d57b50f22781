"""Rows of the edge class ``largest`` (issue #30): the largest and deepest inputs each prompt allows, each
step within a CPU budget derived from the reference's own CPU (``budget_s``, written by gen_v5.py).

Read from the prompts: where a prompt states a maximum (orderfsm's 20-character ORDER) the row uses it;
elsewhere a size a real user plausibly gives — a name of tens of thousands of characters, a quantity in the
billions, an order of a million items, parentheses nested 100 deep and sums of 5,000 terms, transactions
nested 1,200 deep, a 4,000-statement script, a 600-record CSV, 1,000 JSON objects, JSON nested 600 deep, a
4,000-line log spanning a day and a half, a to-do file of 800 tasks, a split among 40 people, amounts of
5 x 10^16 dollars and a 15 % tip on 1.2 x 10^16.  Sizes stay within
what the reference answers (its recursion stops near 200 nested parentheses and 800 nested JSON arrays)
and within what one box command and the 64 KB of stdout a step keeps can carry.  Every expectation is the
reference's (gen_v5.freeze_step); a row asserts only what the prompt fixes.
"""
from __future__ import annotations

import json
from typing import Any

EDGE = ["largest"]


def _step(argv: list[str], out: str = "exact", **kw: Any) -> dict[str, Any]:
    return {"argv": argv, "out": out, "exit": kw.pop("exit", 0), **kw}


def _row(rid: str, req: list[str], *steps: dict[str, Any], files_in: dict[str, str] | None = None) -> dict[str, Any]:
    r: dict[str, Any] = {"id": f"largest-{rid}", "req": req, "edges": EDGE, "steps": list(steps)}
    if files_in:
        r["files_in"] = files_in
    return r


def _err(argv: list[str]) -> dict[str, Any]:
    return _step(argv, "any", exit=1, err="error:")


# ---------------------------------------------------------------- invtrack: long names, quantities in the billions

def _db(*argv: str) -> list[str]:
    return ["--db", "{db}", *argv]


LONG_NAME = ("Hex bolt M8, \"zinc\" — Zürich " * 1400)[:40000]
INVTRACK = [
    _row("invtrack-long-name", ["C-ADD", "C-LIST-JSON", "C-UPDATE-NAME"],
         _step(_db("item", "add", "A1", "--name", LONG_NAME, "--qty", "3", "--price", "1.5"), "any"),
         _step(_db("item", "list", "--json"), "json"),
         _step(_db("item", "update", "A1", "--name", LONG_NAME[::-1]), "any"),
         _step(_db("item", "list", "--json"), "json")),
    _row("invtrack-billions", ["C-ADD", "C-STOCK-IN", "C-UPDATE-QTY", "C-STOCK-OUT", "C-VALUE", "C-LIST-JSON"],
         _step(_db("item", "add", "S1", "--name", "Screw", "--qty", "4000000000", "--price", "2"), "any"),
         _step(_db("stock", "in", "S1", "5000000000"), "any"),
         _step(_db("item", "list", "--json"), "json"),
         _step(_db("report", "value"), "value"),
         _step(_db("item", "update", "S1", "--qty", "7000000000"), "any"),
         _step(_db("stock", "out", "S1", "6999999999"), "any"),
         _step(_db("item", "list", "--json"), "json")),
]

# ---------------------------------------------------------------- rdcalc: deep nesting, long expressions

RDCALC = [
    _row("rdcalc-parens-100", ["R-PARENS", "R-PREC"], _step(["eval", "(" * 100 + "1+2*3" + ")" * 100])),
    _row("rdcalc-parens-chain", ["R-PARENS", "R-EXPR-LEFT"],
         _step(["eval", "".join(f"({i}-" for i in range(1, 81)) + "0" + ")" * 80])),
    _row("rdcalc-sum-5000", ["R-EXPR-LEFT", "R-WS"], _step(["eval", " + ".join(str(i % 10) for i in range(5000))])),
    _row("rdcalc-term-2000", ["R-TERM-LEFT"], _step(["eval", "*".join(["3/3"] * 1000) + "*7"])),
]

# ------------------------------------------------------- txkvbench: 1,200 nested transactions, 4,000 statements

DEPTH = 1200
_NEST = "SET base 0; " + "".join(f"BEGIN; SET j{i} {i}; " for i in range(1, DEPTH + 1))
TXKVBENCH = [
    _row("txkvbench-nested-1200",
         ["T-BEGIN-NEST", "T-ROLLBACK-INNER", "T-COMMIT-MERGE", "T-COMMIT-OUTER-WRITES", "T-GET"],
         _step(_db("exec", _NEST + "GET base; GET j1; GET j1200; COUNT; ROLLBACK; GET j1200; GET j1199; "
                   + "COMMIT; " * (DEPTH - 1) + "GET base; COUNT")),
         _step(_db("exec", "GET base; GET j1; GET j1199; GET j1200; COUNT"))),
    _row("txkvbench-script-4000", ["T-SPLIT", "T-COUNT", "T-PERSIST", "T-DELETE"],
         _step(_db("exec", "BEGIN; " + "".join(f"SET k{i} v{i}; " for i in range(3000))
                   + "".join(f"DELETE k{i}; " for i in range(0, 3000, 3)) + "COMMIT; COUNT; GET k1; GET k3")),
         _step(_db("exec", "COUNT; GET k2999; GET k2997"))),
]

# ------------------------------------------- tabconv: a 600-record CSV, 1,000 objects, a long field, deep JSON

_CSV = "sku,name,qty,price,ok\n" + "".join(
    f"A{i:04d},\"Bolt, size {i % 17}\",{i * 37 % 1000},{i % 50}.{i % 100:02d},{'true' if i % 3 else ''}\n"
    for i in range(600))  # its JSON stays within the 64 KB of stdout a step keeps
_FIELD = "".join(f"line {i}, \"quoted\"\n" for i in range(1000))
_DEEP = 600
TABCONV = [
    _row("tabconv-csv-600", ["T-RECORDS", "T-QUOTED", "T-JSON-FORMAT", "T-TYPE-INT", "T-TYPE-DEC"],
         _step(["to-json", "{dir}/big.csv"]), files_in={"{dir}/big.csv": _CSV}),
    _row("tabconv-json-1000", ["T-CSV-COLUMNS", "T-CSV-VALUES", "T-CSV-QUOTING"],
         _step(["to-csv", "-"], stdin=json.dumps([{"sku": f"A{i}", "name": f"Nut, {i}", "qty": i, "price": i / 4,
                                                   "tags": [i, "x"]} for i in range(1000)]))),
    _row("tabconv-long-field", ["T-QUOTED", "T-CSV-QUOTING"],
         _step(["to-csv", "-"], stdin=json.dumps([{"note": _FIELD, "n": 1}]))),
    _row("tabconv-deep-json", ["T-CSV-VALUES"],
         _step(["to-csv", "-"], stdin='[{"a": ' + "[" * _DEEP + '1, {"b": null}' + "]" * _DEEP + ', "c": 2}]')),
]
TABCONV_HARD = [
    _row("tabconv-stats-3000", ["T-STATS-SHAPE", "T-STATS-COUNT", "T-STATS-MINMAX", "T-STATS-MEAN"],
         _step(["stats", "{dir}/big.csv"]),
         files_in={"{dir}/big.csv": "id,qty,price,name\n" + "".join(
             f"{i},{i % 101 * 7},{i % 97}.{i % 10},item {i % 10}\n" for i in range(3000))}),
]

# ---------------------------------------------------------------- orderfsm: the 20-character ORDER, a million items

_ID20 = "Order-2026_03-ABCDEF"  # 20 characters, the stated maximum
ORDERFSM = [
    _row("orderfsm-id-20-lifecycle", ["F-CREATE", "F-ID", "F-HISTORY", "F-REFUND"],
         *(_step(_db(cmd, _ID20, "--at", f"2026-03-0{k + 1}T0{k}:00")) for k, cmd in
           enumerate(["create", "pay", "ship", "deliver", "refund"])),
         _step(_db("history", _ID20)), _step(_db("list"))),
]
ORDERFSM_HARD = [
    _row("orderfsm-million-items", ["F-ITEMS", "F-PARTIAL", "F-SHOW-JSON", "F-UNDO"],
         _step(_db("create", "BULK", "--at", "2026-03-01T09:00", "--items", "1000000")),
         _step(_db("pay", "BULK", "--at", "2026-03-01T10:00")),
         _step(_db("ship", "BULK", "--at", "2026-03-02T08:00", "--qty", "999999")),
         _step(_db("show", "BULK", "--json"), "json"),
         _step(_db("ship", "BULK", "--at", "2026-03-02T09:00")),
         _step(_db("undo", "BULK")),
         _step(_db("show", "BULK", "--json"), "json")),
]

# ---------------------------------------------------------------- libloan: long ids and names, big money, decades late

_LOAN = ["--data", "{dir}/lib.json"]
_MID = "M-" + "7" * 4998  # a 5,000-character id
_LONG_TITLE = ("Der Zauberberg, \"Band 1\" — " * 800)[:20000]
LIBLOAN = [
    _row("libloan-long-values", ["L-ID", "L-TEXT", "L-MEMBER-LIST", "L-BOOK-LIST", "L-FINE", "L-FINES-REPORT"],
         _step([*_LOAN, "member", "add", _MID, "--name", "  " + _LONG_TITLE[::-1] + "\n"], "any"),
         _step([*_LOAN, "book", "add", "B1", "--title", _LONG_TITLE, "--price", "9999999999.80", "--copies", "1000"],
               "any"),
         _step([*_LOAN, "loan", "out", _MID, "B1", "--on", "2000-02-29"]),
         _step([*_LOAN, "loan", "return", _MID, "B1", "--on", "2026-03-01"]),
         _step([*_LOAN, "member", "list"]), _step([*_LOAN, "book", "list"]), _step([*_LOAN, "report", "fines"])),
    _row("libloan-long-bad-id", ["L-ID", "L-ERR-NOCHANGE"],
         _err([*_LOAN, "member", "add", "M" * 27 + ",", "--name", "Ada"]),
         _step([*_LOAN, "member", "list"])),
]

# ---------------------------------------------------------------- logstat: a 4,000-line log over a day and a half

_METHODS = ["GET", "GET", "GET", "POST", "PUT"]


def _log(n: int = 4000) -> str:
    lines = []
    for i in range(n):
        minute = i * 2000 // n  # 2,000 minutes: 01/Mar 00:00 to 02/Mar 09:19
        day, hour, mm = 1 + minute // 1440, minute % 1440 // 60, minute % 60
        k = i % 100  # the request's other fields repeat every 100 lines
        path = f"/p{k * 7 % 50}" + ("?q=1" if k % 4 == 0 else "")
        size = "-" if k % 11 == 0 else str(k * 13 % 500)
        lines.append(f"10.0.0.{k % 7} - - [{day:02d}/Mar/2026:{hour:02d}:{mm:02d}:{k % 60:02d} +0100] "
                     f"\"{_METHODS[k % 5]} {path} HTTP/1.1\" {[200, 200, 304, 404, 500][k % 5]} {size} {k * 31 % 97}")
        if i % 500 == 0:
            lines.append("garbage line")
    lines.reverse()  # "the lines of the log need not be in time order"
    return "\n".join(lines) + "\n"


LOGSTAT = [
    _row("logstat-4000-lines", ["L-SUMMARY", "L-MEAN", "L-BYTES-SUM", "L-TOP", "L-PCT", "L-MALFORMED",
                                "L-RATE"],
         _step(["summary", "{dir}/access.log"]), _step(["top", "{dir}/access.log", "--n", "50"]),
         _step(["latency", "{dir}/access.log"]),
         _step(["rate", "{dir}/access.log"]), files_in={"{dir}/access.log": _log()}),
]

# ------------------------------------------- todokit: a to-do file of 800 tasks (the current version's format)


def _v1_file(n: int = 800) -> str:
    tasks = [{"id": i, "text": f"Task {i}: call shop #{i % 9}", "done": i % 4 == 0} for i in range(1, n + 1)]
    return json.dumps({"next_id": n + 3, "tasks": tasks}, indent=2) + "\n"


_TODO = ["--file", "{dir}/todo.json"]
TODOKIT = [
    _row("todokit-800-old-tasks", ["E-COMPAT", "E-FILE-KEYS", "E-SHOW", "E-SEARCH", "E-LIST-PENDING"],
         _step([*_TODO, "done", "3"]),
         _step([*_TODO, "show", "800"]),
         _step([*_TODO, "add", "Call mom", "--priority", "high", "--due", "2026-03-01", "--tag", "family"]),
         _step([*_TODO, "search", "SHOP #8"]),
         _step([*_TODO, "list", "--pending", "--sort", "priority"]),
         files_in={"{dir}/todo.json": _v1_file()}),
]

# ---------------------------------------------------------------- splitpay: 40 people, amounts of 5 x 10^16 dollars

_PAY = ["--db", "{db}"]
_PEOPLE = [f"P{i:02d} {'Émile' if i % 5 == 0 else 'Ann'}" for i in range(40)]
SPLITPAY = [
    _row("splitpay-40-people", ["S-EQUAL", "S-SHARES", "S-BALANCES", "S-SETTLE", "S-EXPENSE-LIST"],
         *(_step([*_PAY, "person", "add", p], "any") for p in _PEOPLE),
         _step([*_PAY, "expense", "add", "--payer", _PEOPLE[0], "--amount", "1000.01", "--desc", "Trip",
                "--tip", "12.5", *[a for p in _PEOPLE for a in ("--equal", p)]]),
         _step([*_PAY, "expense", "add", "--payer", _PEOPLE[7], "--amount", "777.77", "--desc", "Hotel",
                *[a for k, p in enumerate(_PEOPLE) for a in ("--share", f"{p}={k % 7 + 1}")]]),
         _step([*_PAY, "balances"]), _step([*_PAY, "settle"])),
    _row("splitpay-huge-amounts", ["S-TIP", "S-AMOUNT", "S-FORMAT", "S-BALANCES", "S-SETTLE"],
         _step([*_PAY, "person", "add", "Ann"], "any"), _step([*_PAY, "person", "add", "Bob"], "any"),
         _step([*_PAY, "person", "add", "Cy"], "any"),
         _step([*_PAY, "expense", "add", "--payer", "Ann", "--amount", "50000000000000000.00", "--desc", "Tower",
                "--equal", "Bob", "--equal", "Cy"]),
         _step([*_PAY, "expense", "add", "--payer", "Ann", "--amount", "49999999999999999.99", "--desc", "Land",
                "--equal", "Ann", "--equal", "Bob", "--equal", "Cy"]),
         _step([*_PAY, "expense", "add", "--payer", "Bob", "--amount", "12345678901234567.89", "--desc", "Dinner",
                "--tip", "15", "--equal", "Cy"]),
         _step([*_PAY, "balances"]), _step([*_PAY, "settle"])),
]

ROWS: dict[str, list[dict[str, Any]]] = {
    "invtrack": INVTRACK, "rdcalc": RDCALC, "txkvbench": TXKVBENCH, "tabconv": TABCONV, "tabconv-hard": TABCONV_HARD,
    "orderfsm": ORDERFSM, "orderfsm-hard": ORDERFSM_HARD, "libloan": LIBLOAN, "logstat": LOGSTAT,
    "todokit": TODOKIT, "splitpay": SPLITPAY,
}
