"""Golden tables for invtrack (seed 2026): command sequences with boundary values, each on a fresh
database ({db}); every step is its own ``python3 -m invtrack`` process, so persistence is exercised.

Review built in: each sequence is replayed on a model written here from the prompt (a dict of items),
and the reference's JSON list, value, low-stock lines and CSV rows must equal the model's.
"""
from __future__ import annotations

import random
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import answer, write

SEED = 2026
ACCEPT = ["item add A1 --name Bolt --qty 10 --price 2", "item add A2 --name Nut --qty 5 --price 1"]

FIXED = [  # (commands, requirement ids)
    ([*ACCEPT, "report value", "item list --json"], ["C-ACCEPT", "C-ADD", "C-VALUE", "C-LIST-JSON"]),
    ([*ACCEPT, "item list"], ["C-LIST", "C-ADD"]),
    (["item add C3 --name Cog --qty 1 --price 1", "item add A1 --name Bolt --qty 2 --price 3",
      "item add B2 --name Nut --qty 3 --price 2", "item list", "item list --json"], ["C-LIST", "C-LIST-JSON"]),
    (["item list --json"], ["C-LIST-JSON"]), (["report value"], ["C-VALUE"]),
    (["item add X --name Washer --qty 3 --price 1.25", "item add Y --name Pin --qty 2 --price 0.1", "report value"],
     ["C-VALUE", "C-ADD"]),
    (["item add Z --name Free --qty 0 --price 0", "item list --json", "report value"], ["C-ADD", "C-VALUE"]),
    (["item add H1 --name 'Hex Bolt' --qty 7 --price 0.5", "item list --json"], ["C-ADD", "C-LIST-JSON"]),
    (["item add A1 --name Bolt --qty 10 --price 2", "item add A1 --name Other --qty 1 --price 9", "item list --json"],
     ["C-ADD-DUP", "C-ERR-FORMAT", "C-ERR-EXIT"]),
    (["item add A1 --name Bolt --qty -1 --price 2", "item list --json"], ["C-NEG-ADD"]),
    (["item add A1 --name Bolt --qty 1 --price -2", "item list --json"], ["C-NEG-ADD"]),
    ([*ACCEPT, "item update A1 --name Screw", "item list --json"], ["C-UPDATE-NAME"]),
    ([*ACCEPT, "item update A1 --qty 4", "item list --json", "report value"], ["C-UPDATE-QTY"]),
    ([*ACCEPT, "item update A2 --price 2.5", "item list --json", "report value"], ["C-UPDATE-PRICE"]),
    ([*ACCEPT, "item update A1 --name Screw --qty 1 --price 0.25", "item list --json"],
     ["C-UPDATE-NAME", "C-UPDATE-QTY", "C-UPDATE-PRICE"]),
    ([*ACCEPT, "item update NOPE --qty 1", "item list --json"], ["C-UPDATE-UNKNOWN"]),
    ([*ACCEPT, "item update A1 --qty -5", "item list --json"], ["C-NEG-UPDATE"]),
    ([*ACCEPT, "item update A1 --price -1", "item list --json"], ["C-NEG-UPDATE"]),
    ([*ACCEPT, "item remove A1", "item list --json", "report value"], ["C-REMOVE"]),
    ([*ACCEPT, "item remove NOPE", "item list --json"], ["C-REMOVE-UNKNOWN"]),
    (["item remove A1"], ["C-REMOVE-UNKNOWN"]),
    ([*ACCEPT, "stock in A1 5", "item list --json"], ["C-STOCK-IN"]),
    ([*ACCEPT, "stock in NOPE 5", "item list --json"], ["C-STOCK-IN-UNKNOWN"]),
    ([*ACCEPT, "stock out A1 3", "item list --json", "report value"], ["C-STOCK-OUT"]),
    ([*ACCEPT, "stock out A2 5", "item list --json"], ["C-STOCK-OUT"]),
    ([*ACCEPT, "stock out NOPE 1", "item list --json"], ["C-STOCK-OUT-UNKNOWN"]),
    ([*ACCEPT, "stock out A2 6", "item list --json", "report value"], ["C-STOCK-OUT-SHORT"]),
    (["item add A1 --name Bolt --qty 10 --price 2", "stock out A1 3", "stock in A1 1", "stock out A1 50",
      "report value"], ["C-STOCK-OUT-SHORT", "C-STOCK-IN", "C-STOCK-OUT"]),
]

HARD = [
    ([*ACCEPT, "report low --threshold 6"], ["C-LOW", "C-ACCEPT-HARD"]),
    ([*ACCEPT, "report low --threshold 5", "report low --threshold 6"], ["C-LOW"]),
    ([*ACCEPT, "report low --threshold 11"], ["C-LOW"]),
    (["item add B2 --name 'Hex Nut' --qty 1 --price 1", "item add A9 --name Pin --qty 0 --price 1",
      "item add C1 --name Cog --qty 3 --price 1", "report low --threshold 3"], ["C-LOW"]),
    ([*ACCEPT, "export --csv {dir}/out.csv"], ["C-EXPORT", "C-ACCEPT-HARD"]),
    (["item add B2 --name Nut --qty 5 --price 1.5", "item add A1 --name 'Hex Bolt' --qty 10 --price 2",
      "item add C3 --name Cog --qty 0 --price 0.25", "export --csv {dir}/out.csv"], ["C-EXPORT"]),
]


class Model:
    def __init__(self) -> None:
        self.items: dict[str, dict] = {}

    def run(self, argv: list[str]) -> bool:
        """Apply one command; False when the prompt calls it an error."""
        g, c = argv[0], argv[1] if len(argv) > 1 else None
        opt = {argv[i][2:]: argv[i + 1] for i in range(len(argv) - 1) if argv[i].startswith("--")}
        if (g, c) == ("item", "add"):
            sku = argv[2]
            if sku in self.items or int(opt["qty"]) < 0 or float(opt["price"]) < 0:
                return False
            self.items[sku] = {"sku": sku, "name": opt["name"], "qty": int(opt["qty"]), "price": float(opt["price"])}
        elif (g, c) == ("item", "update"):
            it = self.items.get(argv[2])
            if it is None or int(opt.get("qty", 0)) < 0 or float(opt.get("price", 0)) < 0:
                return False
            it.update({k: (int(v) if k == "qty" else float(v) if k == "price" else v) for k, v in opt.items()})
        elif (g, c) == ("item", "remove"):
            return self.items.pop(argv[2], None) is not None
        elif g == "stock":
            it, q = self.items.get(argv[2]), int(argv[3])
            if it is None or (c == "out" and q > it["qty"]):
                return False
            it["qty"] += q if c == "in" else -q
        return True

    def listing(self) -> list[dict]:
        return [self.items[k] for k in sorted(self.items)]

    def value(self) -> str:
        return f"{sum(i['qty'] * i['price'] for i in self.items.values()):.2f}"


def steps_for(cmds: list[str]) -> list[dict]:
    m, steps = Model(), []
    for cmd in cmds:
        argv = shlex.split(cmd)
        ok = m.run(argv)
        st: dict = {"argv": ["--db", "{db}", *argv], "out": "any", "expect_exit": 0 if ok else 1}
        if cmd == "item list --json":
            st["out"], st["model"] = "json", m.listing()
        elif cmd == "item list":
            st["out"], st["stdout"] = "order", [i["sku"] for i in m.listing()]
        elif cmd == "report value":
            st["out"], st["stdout"] = "number2", m.value()
        elif cmd.startswith("report low"):
            n = int(argv[-1])
            lines = "".join(f"{i['sku']} {i['name']} {i['qty']}\n" for i in m.listing() if i["qty"] < n)
            if lines:  # an empty report may fairly say "none": only the exit status is compared then
                st["out"], st["model"] = "exact", lines
        elif cmd.startswith("export"):
            st["files"] = [argv[-1]]
            st["model"] = [["sku", "name", "qty", "price"]] + [[i["sku"], i["name"], str(i["qty"]), f"{i['price']:.2f}"]
                                                               for i in m.listing()]
        steps.append(st)
    return steps


def random_cmds(rng: random.Random) -> list[str]:
    skus, cmds = ["A1", "B2", "C3"], []
    for _ in range(rng.randint(3, 8)):
        s, r = rng.choice(skus), rng.random()
        if r < 0.35:
            cmds.append(f"item add {s} --name N{s} --qty {rng.choice([0, 1, 5, 12])} --price {rng.choice(['0', '0.5', '1.25', '3'])}")
        elif r < 0.5:
            cmds.append(f"item update {s} --{rng.choice(['qty', 'price'])} {rng.choice(['2', '7', '0.75'] if rng.random() < .5 else ['4'])}")
        elif r < 0.6:
            cmds.append(f"item remove {s}")
        elif r < 0.75:
            cmds.append(f"stock in {s} {rng.choice([1, 3, 10])}")
        else:
            cmds.append(f"stock out {s} {rng.choice([1, 2, 6, 13])}")
    return [c for c in cmds if "--qty 0.75" not in c] + ["item list --json", "report value"]


def build(rows_in: list[tuple[list[str], list[str]]], prefix: str) -> list[dict]:
    rows = [{"id": f"{prefix}{i:02d}", "req": req, "steps": steps_for(cmds)} for i, (cmds, req) in enumerate(rows_in)]
    table = answer("invtrack", rows, "error:")
    for row, src in zip(table, rows):  # review: the reference agrees with the prompt's model
        for got, want in zip(row["steps"], src["steps"]):
            if "model" in want and got["exit"] == 0:
                key = "files" if "files" in want else "stdout"
                val = got["files"][want["files"][0]]["csv"] if key == "files" else got["stdout"]
                assert val == want["model"], (row["id"], want["argv"], val, want["model"])
            if want["out"] == "number2":
                assert got["stdout"] == want["stdout"], (row["id"], got)
    return table


def main() -> None:
    if sys.argv[1:] == ["hard"]:  # regenerate only the hard table
        write("invtrack-hard", build(HARD, "hard"), SEED)
        return
    rng = random.Random(SEED)
    randoms = [(random_cmds(rng), ["C-ADD", "C-UPDATE-QTY", "C-UPDATE-PRICE", "C-REMOVE", "C-STOCK-IN", "C-STOCK-OUT",
                                   "C-VALUE", "C-LIST-JSON", "C-PERSIST"]) for _ in range(16)]
    write("invtrack", build(FIXED, "fix") + build(randoms, "rnd"), SEED)
    write("invtrack-hard", build(HARD, "hard"), SEED)


if __name__ == "__main__":
    main()
