"""Cross-cutting edge-class rows for bench-v5 (answered by the reference in gen_v5.py): {table name: rows}.

Two classes that cut across specs (declared in suite.yaml's ``edge_classes``):

- ``input_form`` (tabconv, logstat): every bench-v3 row that reads an input file again with the same text
  through standard input (``-``), with a UTF-8 BOM in front (tabconv: "a byte order mark at the start of the
  input is ignored"; the file and stdin), with CRLF line ends and with no final line break.  The prompts say
  each form means the same input, so the review asks each variant to print exactly what the original row
  printed (a variant the prompt does not make equal — a quoted line break turned into CRLF — is not made).
- ``sequence`` (invtrack, txkvbench, splitpay, todokit): seeded random command sequences drawn from the whole
  command grammar, 2-8 commands on one data file, every mutating command followed by a fresh invocation
  that reads (so persistence and "an error changes nothing" are asked at every step), compared with the
  reference step by step.  Only commands whose output the prompt fixes are compared; the others are
  ``any`` (their exit status still is).
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

SEED = 2026
V3 = Path(__file__).resolve().parents[2] / "bench-v3" / "tables"
INPUT_REQ = {"tabconv": ["T-STDIN", "T-BOM"], "logstat": ["L-STDIN"]}  # the requirement each input-form row also answers for


def _step(argv: list[str], out: str = "exact", **kw: Any) -> dict[str, Any]:
    return {"argv": argv, "out": out, "exit": kw.pop("exit", 0), **kw}


def _same(st: dict[str, Any], **kw: Any) -> dict[str, Any]:
    """``st`` with other inputs and the original's expectations, which are the review: the reference must
    print exactly what the original row printed (gen_v5.freeze_step stops otherwise)."""
    return {**{k: v for k, v in st.items() if k != "stdin"}, **kw}


def input_forms(name: str) -> list[dict[str, Any]]:
    """The input-form variants of every one-step bench-v3 row of ``name`` that reads one input file."""
    slug = name.split("-")[0]
    rows = []
    for r in json.loads((V3 / f"{name}.json").read_text())["rows"]:
        files = r.get("files_in") or {}
        if len(r["steps"]) != 1 or len(files) != 1:
            continue
        [(path, text)] = files.items()
        st = r["steps"][0]
        if path not in st["argv"] or "--output" in st["argv"]:
            continue
        i = st["argv"].index(path)
        dash = [*st["argv"][:i], "-", *st["argv"][i + 1:]]
        req = sorted({*r["req"], *INPUT_REQ[slug]})

        def variant(suffix: str, step: dict[str, Any], files_in: dict[str, str] | None = None) -> None:
            row: dict[str, Any] = {"id": f"{r['id']}-{suffix}", "req": req, "edges": ["input_form"], "steps": [step]}
            if files_in:
                row["files_in"] = files_in
            rows.append(row)

        variant("stdin", _same(st, argv=dash, stdin=text))
        if slug == "tabconv" and not text.startswith("\ufeff"):
            variant("bom", _same(st), {path: "\ufeff" + text})
            variant("bom-stdin", _same(st, argv=dash, stdin="\ufeff" + text))
        if "\r" not in text and "\n" in text and (slug == "logstat" or '"' not in text):
            variant("crlf", _same(st), {path: text.replace("\n", "\r\n")})
            variant("crlf-stdin", _same(st, argv=dash, stdin=text.replace("\n", "\r\n")))
        if text.endswith("\n") and not text.endswith("\n\n") and (slug == "logstat" or '"' not in text):
            variant("no-final-newline", _same(st), {path: text[:-1]})
    return rows


# ---------------------------------------------------------------- random command sequences (model-based)

def _invtrack(rng: random.Random) -> list[dict[str, Any]]:
    skus, names = ["A1", "B2", "C3"], ["Bolt", "Nut", "O'Brien \"5\" bolt", "Zürich", "Hex Bolt"]
    reads = [_step(["--db", "{db}", "item", "list", "--json"], "json"), _step(["--db", "{db}", "report", "value"], "value")]
    steps = []
    for _ in range(rng.randint(2, 8)):
        sku = rng.choice(skus)
        kind = rng.choice(["add", "add", "update", "remove", "in", "out", "out"])
        if kind == "add":
            argv = ["item", "add", sku, "--name", rng.choice(names), "--qty", str(rng.randint(0, 10)),
                    "--price", rng.choice(["0", "0.7", "1.25", "2", "4.5"])]
        elif kind == "update":
            opt = rng.choice([["--qty", str(rng.randint(0, 10))], ["--price", rng.choice(["0", "0.7", "3"])],
                              ["--name", rng.choice(names)], ["--qty", "-1"]])
            argv = ["item", "update", sku, *opt]
        elif kind == "remove":
            argv = ["item", "remove", sku]
        else:
            argv = ["stock", kind, sku, str(rng.randint(1, 6))]
        steps += [_step(["--db", "{db}", *argv], "any", exit="ref"), rng.choice(reads)]
    return steps


def _txkvbench(rng: random.Random) -> list[dict[str, Any]]:
    keys, values = ["a", "b", "c"], ["1", "2", "x", "007", "it's"]
    steps = []
    for _ in range(rng.randint(2, 5)):
        stmts = []
        for _ in range(rng.randint(2, 8)):
            kind = rng.choice(["SET", "SET", "GET", "GET", "DELETE", "COUNT", "BEGIN", "BEGIN", "ROLLBACK", "COMMIT"])
            k = rng.choice(keys)
            stmts.append({"SET": f"SET {k} {rng.choice(values)}", "GET": f"GET {k}", "DELETE": f"DELETE {k}"}.get(kind, kind))
        steps.append(_step(["--db", "{db}", "exec", "; ".join(stmts)]))
        steps.append(_step(["--db", "{db}", "exec", "GET a; GET b; GET c; COUNT"]))
    return steps


def _splitpay(rng: random.Random) -> list[dict[str, Any]]:
    people = ["Ann", "Bob", "Cy", "ann", "Émile"]
    amounts = ["10", "0.29", "4.35", "12.5", "0.07", "98765432109876.53", "10.10", "7"] * 3 + ["0", "-5", "1.234", "1,000"]
    reads = [_step(["--db", "{db}", "balances"]), _step(["--db", "{db}", "settle"]), _step(["--db", "{db}", "expense", "list"]),
             _step(["--db", "{db}", "person", "list"])]
    added = rng.sample(people, 3)
    steps = [_step(["--db", "{db}", "person", "add", p], "any", exit="ref") for p in added]
    for _ in range(rng.randint(2, 6)):
        if rng.random() < 0.2:
            argv = ["person", "add", rng.choice(people)]
            steps += [_step(["--db", "{db}", *argv], "any", exit="ref"), _step(["--db", "{db}", "person", "list"])]
            continue
        pool = added if rng.random() < 0.85 else people  # mostly known people: most expenses are recorded
        payer, among = rng.choice(pool), rng.sample(pool, rng.randint(1, 3))
        kind = rng.choice(["--equal", "--equal", "--share"])
        split = [x for p in among for x in (kind, p if kind == "--equal" else f"{p}={rng.randint(1, 3)}")]
        tip = rng.choice([[], [], ["--tip", "15"], ["--tip", "12.5"]])
        argv = ["expense", "add", "--payer", payer, "--amount", rng.choice(amounts), "--desc", "Lunch", *tip, *split]
        steps += [_step(["--db", "{db}", *argv], "exact", exit="ref"), rng.choice(reads)]
    return steps


def _todokit(rng: random.Random) -> list[dict[str, Any]]:
    """Drawn with a model of the file (next id, tasks and whether done), so most commands name a real task."""
    texts = ["Buy milk", "Call mom", "  spaced  ", "Zürich \"trip\""]
    next_id, tasks = 1, {}  # id -> done
    steps: list[dict[str, Any]] = []
    follow: list[str] = []  # commands drawn next (after the newest task is removed: done, then add)
    for _ in range(rng.randint(4, 8)):
        kind = follow.pop(0) if follow else rng.choice(["add", "add", "add", "done", "done", "remove", "remove"])
        if kind == "add":
            text = rng.choice(texts) if rng.random() < 0.85 else ""
            if text.strip():
                tasks[next_id], next_id = False, next_id + 1
            argv = ["add", text]
        else:
            pending = [i for i, d in tasks.items() if not d] if kind == "done" else list(tasks)
            if pending and rng.random() < 0.85:
                target = max(pending) if kind == "remove" and rng.random() < 0.6 else rng.choice(pending)
            else:
                target = rng.randint(0, next_id)
            if target in tasks and kind == "remove":
                if target == max(tasks) and rng.random() < 0.7:
                    follow = ["done", "add"]
                del tasks[target]
            elif target in tasks:
                tasks[target] = True
            argv = [kind, str(target)]
        steps += [_step(["--file", "{dir}/t.json", *argv], "exact", exit="ref"), _step(["--file", "{dir}/t.json", "list"])]
    return steps


def _orderfsm(rng: random.Random) -> list[dict[str, Any]]:
    """Lifecycle commands on a few orders (case matters: A1 and a1), times mostly moving forward, sometimes
    back or not a real date (calendar edges), each followed by a query."""
    orders = ["A1", "a1", "B10", "B9"]
    cmds = ["create", "create", "pay", "ship", "deliver", "cancel", "refund"]
    minute = 9 * 60
    steps = []
    for _ in range(rng.randint(2, 8)):
        order = rng.choice(orders)
        r = rng.random()
        if r < 0.08:
            at = rng.choice(["2026-02-29T10:00", "2026-03-01T24:00", "2026-3-01T10:00", "2026-04-31T09:00"])
        elif r < 0.16:
            at = f"2026-03-01T{(minute - 30) // 60:02d}:{(minute - 30) % 60:02d}"  # back in time
        else:
            minute += rng.choice([0, 1, 30, 61])
            at = f"2026-03-01T{minute // 60:02d}:{minute % 60:02d}"
        steps.append(_step(["--db", "{db}", rng.choice(cmds), order, "--at", at], exit="ref"))
        query = rng.choice([["show", order], ["list"], ["history", order], ["list", "--state", rng.choice(["paid", "created"])]])
        steps.append(_step(["--db", "{db}", *query], exit="ref"))
    return steps


def _libloan(rng: random.Random) -> list[dict[str, Any]]:
    """Loans, returns and payments on a few members and books over a calendar that crosses month and year ends
    and a leap day (and sometimes names a date that does not exist), each followed by a report or a list."""
    import datetime as dt
    data = ["--data", "{dir}/lib.json"]
    steps = [_step([*data, "member", "add", m, "--name", n], "any", exit="ref") for m, n in
             [("M1", "Ada"), ("M10", "Bo"), ("M2", "Émile")]]
    steps += [_step([*data, "book", "add", b, "--title", t, "--price", p, *c], "any", exit="ref") for b, t, p, c in
              [("B1", "Dune", "12.99", ["--copies", "2"]), ("B2", "Emma", "1.00", []), ("B3", "Gold", "9999999999.80", [])]]
    day = dt.date(rng.choice([2026, 2027, 2028]), rng.choice([1, 2, 12]), rng.choice([1, 15, 20]))
    for _ in range(rng.randint(2, 8)):
        day += dt.timedelta(days=rng.choice([0, 1, 9, 14, 15, 30]))
        on = day.isoformat() if rng.random() < 0.9 else rng.choice(["2026-02-30", "2027-02-29", "2026-13-01"])
        m, b = rng.choice(["M1", "M10", "M2"]), rng.choice(["B1", "B2", "B3"])
        kind = rng.choice(["out", "out", "return", "return", "pay"])
        if kind == "pay":
            argv = [*data, "fine", "pay", m, rng.choice(["0.01", "0.97", "1", "5.00"])]
        else:
            argv = [*data, "loan", kind, m, b, "--on", on]
        steps.append(_step(argv, exit="ref"))
        read = rng.choice([["member", "list"], ["book", "list"], ["report", "fines"], ["report", "overdue", "--on", on]])
        steps.append(_step([*data, *read], exit="ref"))
    return steps


def _rdcalc(rng: random.Random) -> list[dict[str, Any]]:
    """One random expression (the grammar's every operator, nesting, unary minus), tokens joined by random
    runs of spaces and tabs ("whitespace between tokens is ignored")."""
    def expr(depth: int) -> list[str]:
        if depth == 0 or rng.random() < 0.3:
            n = rng.choice([str(rng.randint(0, 9)), str(rng.randint(10, 99)), f"{rng.randint(0, 9)}.{rng.randint(1, 9)}",
                            f".{rng.randint(1, 9)}"])
            return ["-", n] if rng.random() < 0.15 else [n]
        op = rng.choice("+-*/^")
        a = expr(depth - 1)
        b = [str(rng.randint(0, 3))] if op == "^" else expr(depth - 1)
        return ["(", *a, op, *b, ")"] if rng.random() < 0.4 else [*a, op, *b]
    toks = expr(rng.randint(1, 3))
    text = toks[0] + "".join(rng.choice(["", "", " ", "\t", "  "]) + t for t in toks[1:])
    return [_step(["eval", text], exit="ref")]


SEQUENCES = {"invtrack": (_invtrack, ["C-PERSIST"]), "txkvbench": (_txkvbench, ["T-PERSIST"]),
             "splitpay": (_splitpay, ["S-PERSIST", "S-PERSON-ADD"]), "todokit": (_todokit, ["E-OLD-LIST", "E-OLD-IDS"]),
             "orderfsm": (_orderfsm, ["F-PERSIST", "F-TIME-ORDER"]), "rdcalc": (_rdcalc, ["R-WS", "R-PREC"]),
             "libloan": (_libloan, ["L-PERSIST", "L-DATE"])}
#: the edge class a spec's random rows sample (sequence, unless the rows are a class the spec already declares)
SAMPLES = {"orderfsm": "order", "rdcalc": "whitespace", "libloan": "boundary"}


def sequences(slug: str, n: int) -> list[dict[str, Any]]:
    make, req = SEQUENCES[slug]
    rng = random.Random(f"{SEED}-{slug}")
    edge = SAMPLES.get(slug, "sequence")
    return [{"id": f"sequence-{k:02d}", "req": req, "edges": [edge], "steps": make(rng)} for k in range(n)]


EDGE_ROWS: dict[str, list[dict[str, Any]]] = {
    "tabconv": input_forms("tabconv"),
    "logstat": input_forms("logstat"),
    "invtrack": sequences("invtrack", 24),
    "txkvbench": sequences("txkvbench", 24),
    "splitpay": sequences("splitpay", 24),
    "todokit-old": sequences("todokit", 40),  # old commands only: the starter answers them alike
    "orderfsm": sequences("orderfsm", 40),
    "rdcalc": sequences("rdcalc", 100),
    "libloan": sequences("libloan", 40),
}
