"""Golden tables for invtrack (bench-v3, seed 2026): bench-v2's command sequences, merged and lean, plus
one row per edge class a requirement declares (suites/bench-v3/specs/crud.yaml), each on a fresh {db}.

Every step is its own ``python3 -m invtrack`` process, so persistence is exercised.  Review built in:
each sequence is replayed on a model written here from the prompt (a dict of items); the exit status
of every step and the reference's JSON list, value, low-stock lines and CSV rows must equal the model's.

What a row may ask is what the prompt's words determine (bench-v2's README lists what stays
uncompared): the total is "formatted with two decimals", so 3 × 0.70 must print 2.10 (the float
product is 2.0999999999999996: every rounding agrees, truncation prints 2.09) — no .xx5 ties;
``--qty Q`` without brackets is required, so leaving it out is a usage error whose form argparse
chooses (``usage=True``: a non-zero exit, no traceback) and after which nothing is stored.

    python3 suites/bench-v3/gen/gen_invtrack.py        # from the repository root
"""
from __future__ import annotations

import json
import random
import shlex
from pathlib import Path

from swarmgym.suitekit.tablegen import answer, row, step, write

SUITE = Path(__file__).resolve().parent.parent
REFERENCE = SUITE / "apps" / "invtrack" / "reference"
SEED = 2026
ACCEPT = ["item add A1 --name Bolt --qty 10 --price 2", "item add A2 --name Nut --qty 5 --price 1"]
QUOTED = "O'Brien \"5\" bolt"      # a single and a double quote: SQL built by string formatting breaks
COMMA = "Bolt, large"              # the CSV separator inside a name
STARTQ = '"Hex" nut'               # a name that starts with a quote: must be quoted and doubled in CSV
BOTH = 'Cog, 5" wide'              # a comma and a quote

FIXED = [  # (row id, requirement ids, edge classes, commands)
    ("accept", ["C-ACCEPT", "C-ADD", "C-VALUE", "C-LIST-JSON", "C-PERSIST", "C-DB-OPT"], [],
     [*ACCEPT, "report value", "item list --json"]),
    ("list-order", ["C-LIST", "C-LIST-JSON"], ["order"],
     ["item add C3 --name Cog --qty 1 --price 1", "item add A1 --name Bolt --qty 2 --price 3",
      "item add B2 --name Nut --qty 3 --price 2", "item list", "item list --json"]),
    ("empty-store", ["C-LIST-JSON", "C-VALUE"], ["empty"], ["item list --json", "report value"]),
    ("value-float-trap", ["C-VALUE"], ["rounding"],
     ["item add A --name Rod --qty 3 --price 0.7", "report value", "item add B --name Pipe --qty 100 --price 4.35",
      "report value", "item add C --name Pin --qty 2 --price 0.1", "report value"]),
    ("value-cents", ["C-VALUE", "C-ADD"], [],
     ["item add X --name Washer --qty 3 --price 1.25", "item add Y --name Pin --qty 2 --price 0.1", "report value"]),
    ("add-zero", ["C-ADD", "C-NEG-ADD", "C-VALUE"], ["zero", "boundary"],
     ["item add Z --name Free --qty 0 --price 0", "item list --json", "report value"]),
    ("add-missing-option", ["C-ADD", "C-NO-TRACEBACK"], ["missing"],
     ["item add A1 --name Bolt --price 2", "item add A2 --name Nut --qty 5", "item add A3 --qty 1 --price 1",
      "item list --json"]),
    ("add-quotes-and-spaces", ["C-ADD", "C-LIST-JSON", "C-NO-TRACEBACK"], ["quote"],
     [f"item add Q1 --name {shlex.quote(QUOTED)} --qty 1 --price 1", "item add H1 --name 'Hex Bolt' --qty 7 --price 0.5",
      "item list --json"]),
    ("add-duplicate", ["C-ADD-DUP", "C-ERR-FORMAT", "C-ERR-EXIT"], [],
     ["item add A1 --name Bolt --qty 10 --price 2", "item add A1 --name Other --qty 1 --price 9", "item list --json"]),
    ("add-negative", ["C-NEG-ADD", "C-ERR-FORMAT", "C-ERR-EXIT"], [],
     ["item add A1 --name Bolt --qty -1 --price 2", "item add A1 --name Bolt --qty 1 --price -2", "item list --json"]),
    ("update-name", ["C-UPDATE-NAME"], ["quote"],
     [*ACCEPT, "item update A1 --name Screw", f"item update A2 --name {shlex.quote(QUOTED)}", "item list --json"]),
    ("update-qty", ["C-UPDATE-QTY"], [], [*ACCEPT, "item update A1 --qty 4", "item list --json", "report value"]),
    ("update-qty-zero", ["C-UPDATE-QTY", "C-NEG-UPDATE"], ["zero", "boundary"],
     [*ACCEPT, "item update A1 --qty 0", "item list --json", "report value"]),
    ("update-price", ["C-UPDATE-PRICE", "C-NEG-UPDATE"], ["zero", "boundary"],
     [*ACCEPT, "item update A2 --price 2.5", "item update A1 --price 0", "item list --json", "report value"]),
    ("update-all", ["C-UPDATE-NAME", "C-UPDATE-QTY", "C-UPDATE-PRICE"], [],
     [*ACCEPT, "item update A1 --name Screw --qty 1 --price 0.25", "item list --json"]),
    ("update-unknown", ["C-UPDATE-UNKNOWN", "C-ERR-FORMAT"], [], [*ACCEPT, "item update NOPE --qty 1", "item list --json"]),
    ("update-negative", ["C-NEG-UPDATE"], [],
     [*ACCEPT, "item update A1 --qty -5", "item update A1 --price -1", "item list --json"]),
    ("remove", ["C-REMOVE"], [], [*ACCEPT, "item remove A1", "item list --json", "report value"]),
    ("remove-unknown", ["C-REMOVE-UNKNOWN", "C-ERR-EXIT"], [],
     ["item remove A1", *ACCEPT, "item remove NOPE", "item list --json"]),
    ("stock-in", ["C-STOCK-IN"], [], [*ACCEPT, "stock in A1 5", "item list --json"]),
    ("stock-unknown", ["C-STOCK-IN-UNKNOWN", "C-STOCK-OUT-UNKNOWN"], [],
     [*ACCEPT, "stock in NOPE 5", "stock out NOPE 1", "item list --json"]),
    ("stock-out", ["C-STOCK-OUT"], ["boundary"],
     [*ACCEPT, "stock out A1 3", "stock out A2 5", "item list --json", "report value"]),
    ("stock-out-short", ["C-STOCK-OUT-SHORT", "C-ERR-FORMAT", "C-ERR-EXIT"], [],
     [*ACCEPT, "stock out A2 6", "item list --json", "report value"]),
    ("stock-moves", ["C-STOCK-OUT-SHORT", "C-STOCK-IN", "C-STOCK-OUT"], [],
     ["item add A1 --name Bolt --qty 10 --price 2", "stock out A1 3", "stock in A1 1", "stock out A1 50",
      "report value"]),
]

HARD = [
    ("accept-hard", ["C-LOW", "C-EXPORT", "C-ACCEPT-HARD"], [],
     [*ACCEPT, "report low --threshold 6", "export --csv {dir}/out.csv"]),
    ("low-boundary", ["C-LOW"], ["boundary"], [*ACCEPT, "report low --threshold 10", "report low --threshold 11"]),
    ("low-sorted", ["C-LOW"], [],
     ["item add B2 --name 'Hex Nut' --qty 1 --price 1", "item add A9 --name Pin --qty 0 --price 1",
      "item add C1 --name Cog --qty 3 --price 1", "report low --threshold 3"]),
    ("export-edges", ["C-EXPORT"], ["separator", "quote", "rounding"],
     [f"item add C3 --name {shlex.quote(BOTH)} --qty 2 --price 2.5",
      f"item add A1 --name {shlex.quote(COMMA)} --qty 10 --price 1.006",
      f"item add B2 --name {shlex.quote(STARTQ)} --qty 0 --price 0.7", "export --csv {dir}/out.csv"]),
]


class Model:
    """The prompt's store, restated: a dict of items."""

    def __init__(self) -> None:
        self.items: dict[str, dict] = {}

    def run(self, argv: list[str]) -> int:
        """Apply one command; its exit status (0, 1 for a prompt error, 2 for a usage error)."""
        g, c = argv[0], argv[1] if len(argv) > 1 else None
        opt = {argv[i][2:]: argv[i + 1] for i in range(len(argv) - 1) if argv[i].startswith("--")}
        if (g, c) == ("item", "add"):
            if not {"name", "qty", "price"} <= set(opt):
                return 2
            sku = argv[2]
            if sku in self.items or int(opt["qty"]) < 0 or float(opt["price"]) < 0:
                return 1
            self.items[sku] = {"sku": sku, "name": opt["name"], "qty": int(opt["qty"]), "price": float(opt["price"])}
        elif (g, c) == ("item", "update"):
            it = self.items.get(argv[2])
            if it is None or int(opt.get("qty", 0)) < 0 or float(opt.get("price", 0)) < 0:
                return 1
            it.update({k: (int(v) if k == "qty" else float(v) if k == "price" else v) for k, v in opt.items()})
        elif (g, c) == ("item", "remove"):
            return 0 if self.items.pop(argv[2], None) is not None else 1
        elif g == "stock":
            it, q = self.items.get(argv[2]), int(argv[3])
            if it is None or (c == "out" and q > it["qty"]):
                return 1
            it["qty"] += q if c == "in" else -q
        return 0

    def listing(self) -> list[dict]:
        return [self.items[k] for k in sorted(self.items)]

    def value(self) -> str:
        return f"{sum(i['qty'] * i['price'] for i in self.items.values()):.2f}"

    def csv_rows(self) -> list[list[str]]:
        return [["sku", "name", "qty", "price"]] + [[i["sku"], i["name"], str(i["qty"]), f"{i['price']:.2f}"]
                                                    for i in self.listing()]


def steps_for(cmds: list[str]) -> list[dict]:
    m, steps = Model(), []
    for cmd in cmds:
        argv = shlex.split(cmd)
        code = m.run(argv)
        full = ["--db", "{db}", *argv]
        if code == 2:
            steps.append(step(full, usage=True))
            continue
        kw: dict = {"expect_exit": code, "out": "any"}
        if cmd == "item list --json":
            want = m.listing()
            kw.update(out="json", expect=lambda out, w=want: json.loads(out) == w)
        elif cmd == "item list":
            kw.update(out="order", stdout=[i["sku"] for i in m.listing()])
        elif cmd == "report value":
            kw.update(out="number2", stdout=m.value())
        elif cmd.startswith("report low"):
            n = int(argv[-1])
            lines = "".join(f"{i['sku']} {i['name']} {i['qty']}\n" for i in m.listing() if i["qty"] < n)
            if lines:  # an empty report may fairly say "none": only the exit status is compared then
                kw.update(out="exact", expect=lambda out, w=lines: out == w)
        elif cmd.startswith("export"):
            kw["files"] = {argv[-1]: "csv"}
        steps.append(step(full, **kw))
        if cmd.startswith("export"):
            steps[-1]["model_csv"] = m.csv_rows()
    return steps


def random_cmds(rng: random.Random) -> list[str]:
    skus, cmds = ["A1", "B2", "C3"], []
    for _ in range(rng.randint(4, 8)):
        s, r = rng.choice(skus), rng.random()
        if r < 0.35:
            cmds.append(f"item add {s} --name N{s} --qty {rng.choice([0, 1, 5, 12])} "
                        f"--price {rng.choice(['0', '0.5', '1.25', '0.7', '3'])}")
        elif r < 0.5:
            cmds.append(f"item update {s} --{rng.choice(['qty', 'price'])} {rng.choice(['0', '2', '7'])}")
        elif r < 0.6:
            cmds.append(f"item remove {s}")
        elif r < 0.75:
            cmds.append(f"stock in {s} {rng.choice([1, 3, 10])}")
        else:
            cmds.append(f"stock out {s} {rng.choice([1, 2, 6, 13])}")
    return [*cmds, "item list --json", "report value"]


def build(spec: list[tuple[str, list[str], list[str], list[str]]]) -> list[dict]:
    rows = [row(rid, req, edges, *steps_for(cmds)) for rid, req, edges, cmds in spec]
    models = [[st.pop("model_csv", None) for st in r["steps"]] for r in rows]
    table = answer(REFERENCE, "invtrack", rows)
    for golden, want in zip(table, models):  # review: the exported CSV is the model's, field for field
        for st, csv_rows in zip(golden["steps"], want):
            if csv_rows is not None:
                [got] = st["files"].values()
                assert got["csv"] == csv_rows, (golden["id"], got, csv_rows)
    return table


def main() -> None:
    rng = random.Random(SEED)
    randoms = [(f"rnd{i}", ["C-ADD", "C-UPDATE-QTY", "C-UPDATE-PRICE", "C-REMOVE", "C-STOCK-IN", "C-STOCK-OUT",
                            "C-VALUE", "C-LIST-JSON", "C-PERSIST"], [], random_cmds(rng)) for i in range(4)]
    write(SUITE, "invtrack", build(FIXED + randoms), seed=SEED)
    write(SUITE, "invtrack-hard", build(HARD), seed=SEED)


if __name__ == "__main__":
    main()
