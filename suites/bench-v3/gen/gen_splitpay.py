"""Golden tables for splitpay (bench-v3 spec `money`), seed 2026: command sequences on a fresh SQLite file
({db}), every step its own ``python3 -m splitpay`` process, so persistence is exercised.

Review built in: every sequence is replayed on :class:`Model`, written here from the prompt alone (regex
parsing, exact Fraction arithmetic for tips and shares, its own settle-up loop), and the reference must agree
with it on every exit status, every specified stdout and every CSV file; a disagreement stops the generator.

    python suites/bench-v3/gen/gen_splitpay.py
"""
from __future__ import annotations

import math
import re
import shlex
from fractions import Fraction
from pathlib import Path

from swarmgym.core.errors import SuiteError
from swarmgym.suitekit.tablegen import answer, row, step, write

SUITE = Path(__file__).resolve().parents[1]
REF = SUITE / "apps" / "splitpay" / "reference"
SEED = 2026
CSV = "{dir}/out.csv"
AMOUNT_RE = r"[0-9]+(\.[0-9]{1,2})?"


class Refused(Exception):
    """The prompt calls the command an error."""


def money(c: int) -> str:
    return ("-" if c < 0 else "") + f"{abs(c) // 100}.{abs(c) % 100:02d}"


def cents(text: str) -> int:
    if not re.fullmatch(AMOUNT_RE, text):
        raise Refused
    return int(Fraction(text) * 100)


class Model:
    """The prompt's ledger: people, expenses (parts in cents), payments."""

    def __init__(self) -> None:
        self.people: list[str] = []
        self.expenses: list[tuple[str, int, str, dict[str, int]]] = []
        self.payments: list[tuple[str, str, int]] = []
        self.csv: list[list[str]] | None = None

    def name(self, raw: str, known: bool = True) -> str:
        n = raw.strip(" \t\n")
        if not n or (known and n not in self.people):
            raise Refused
        return n

    def balances(self) -> dict[str, int]:
        b = {p: 0 for p in self.people}
        for payer, total, _, parts in self.expenses:
            b[payer] += total
            for n, c in parts.items():
                b[n] -= c
        for a, t, c in self.payments:
            b[a] += c
            b[t] -= c
        return b

    def plan(self) -> list[tuple[str, str, int]]:
        b, out = self.balances(), []
        while any(b.values()):
            debtor = min((n for n in b if b[n] < 0), key=lambda n: (b[n], n))
            creditor = min((n for n in b if b[n] > 0), key=lambda n: (-b[n], n))
            x = min(-b[debtor], b[creditor])
            b[debtor] += x
            b[creditor] -= x
            out.append((debtor, creditor, x))
        return out

    def split(self, kind: str, items: list[str], total: int) -> dict[str, int]:
        if kind == "equal":
            names = [self.name(i) for i in items]
        else:
            pairs = [i.rsplit("=", 1) for i in items]
            if any(len(p) != 2 for p in pairs):
                raise Refused
            names = [self.name(p[0]) for p in pairs]
        if len(set(names)) != len(names):
            raise Refused
        if kind == "equal":
            q = Fraction(total, len(names))
            extra = total - math.floor(q) * len(names)
            return {n: math.floor(q) + (i < extra) for i, n in enumerate(sorted(names))}
        if kind == "share":
            ws = [p[1] for p in pairs]
            if any(not re.fullmatch(r"[0-9]+", w) or int(w) < 1 for w in ws):
                raise Refused
            weights = dict(zip(names, map(int, ws)))
            exact = {n: Fraction(total * w, sum(weights.values())) for n, w in weights.items()}
            parts = {n: math.floor(x) for n, x in exact.items()}
            ranked = sorted(names, key=lambda n: (-(exact[n] - parts[n]), n))
            for n in ranked[:total - sum(parts.values())]:
                parts[n] += 1
            return parts
        parts = {n: cents(p[1]) for n, p in zip(names, pairs)}
        if sum(parts.values()) != total:
            raise Refused
        return parts

    def run(self, argv: list[str]) -> str | None:
        """Apply one command; the stdout the prompt fixes (None: left open). Raises Refused on an error."""
        argv = [p for a in argv for p in (a.split("=", 1) if a.startswith("--") and "=" in a else [a])]
        g = argv[0]
        if argv[:2] == ["person", "add"]:
            n = self.name(argv[2], known=False)
            if n in self.people:
                raise Refused
            self.people.append(n)
            return None
        if argv[:2] == ["person", "list"]:
            return "".join(f"{n}\n" for n in sorted(self.people))
        if argv[:2] == ["expense", "add"]:
            opts: dict[str, list[str]] = {}
            for i in range(2, len(argv) - 1, 2):
                opts.setdefault(argv[i][2:], []).append(argv[i + 1])
            payer, amount = self.name(opts["payer"][0]), cents(opts["amount"][0])
            pct = opts.get("tip", ["0"])[0]
            if amount == 0 or not re.fullmatch(AMOUNT_RE, pct):
                raise Refused
            total = amount + math.floor(amount * Fraction(pct) / 100 + Fraction(1, 2))
            kinds = [k for k in ("equal", "share", "exact") if k in opts]
            if len(kinds) != 1:
                raise Refused
            parts = self.split(kinds[0], opts[kinds[0]], total)
            self.expenses.append((payer, total, opts["desc"][0], parts))
            return f"expense {len(self.expenses)}\n"
        if argv[:2] == ["expense", "list"]:
            return "".join(f"{k}. {payer} paid {money(total)} for {desc}: "
                           + ", ".join(f"{n} {money(parts[n])}" for n in sorted(parts)) + "\n"
                           for k, (payer, total, desc, parts) in enumerate(self.expenses, 1))
        if g == "balances":
            b = self.balances()
            return "".join(f"{n} {money(b[n])}\n" for n in sorted(b))
        if g == "settle":
            return "".join(f"{d} pays {c} {money(x)}\n" for d, c, x in self.plan()) or "all settled\n"
        if argv[:2] == ["payment", "add"]:
            a, t, x = self.name(argv[2]), self.name(argv[3]), cents(argv[4])
            if a == t or x == 0:
                raise Refused
            self.payments.append((a, t, x))
            return f"payment {len(self.payments)}\n"
        if g == "export":
            self.csv = [["kind", "id", "from", "to", "amount"]]
            for k, (payer, _, _, parts) in enumerate(self.expenses, 1):
                self.csv += [["expense", str(k), payer, n, money(parts[n])] for n in sorted(parts)]
            self.csv += [["payment", str(k), a, t, money(x)] for k, (a, t, x) in enumerate(self.payments, 1)]
            return None
        raise SuiteError(f"the model does not know {argv}")


class Usage(list):
    """A command argparse may refuse with its own usage error (any non-zero exit, no traceback)."""


CSV_REVIEW: dict[tuple[str, int], list[list[str]]] = {}


def seq(row_id: str, req: list[str], edges: list[str], *cmds) -> dict:
    """A golden row from commands (a string split like a shell, or an argv list), reviewed by the model."""
    m, steps = Model(), []
    for n, cmd in enumerate(cmds):
        argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
        full = ["--db", "{db}", *[a.replace("OUT", CSV) for a in argv]]
        if isinstance(cmd, Usage):
            steps.append(step(full, usage=True))
            continue
        m.csv = None
        try:
            want, code = m.run(argv), 0
        except Refused:
            want, code = None, 1
        if m.csv is not None:
            CSV_REVIEW[(row_id, n)] = m.csv
            steps.append(step(full, out="any", expect_exit=0, files={CSV: "csv"}))
        elif want is None:
            steps.append(step(full, out="any", expect_exit=code))
        else:
            steps.append(step(full, expect_exit=code, expect=lambda out, w=want: out == w))
    return row(row_id, req, edges, *steps)


def people(*names: str) -> list[list[str]]:
    return [["person", "add", n] for n in names]


def exp(payer: str, amount: str, split: str, desc: str = "x", tip: str | None = None) -> str:
    return f"expense add --payer {payer} --amount {amount} --desc {desc}" + (f" --tip {tip}" if tip else "") + f" {split}"


ABC = people("Ann", "Bob", "Cy")
EQ3 = "--equal Ann --equal Bob --equal Cy"
VIEW = ["expense list", "balances", "settle"]

ROWS = [
    seq("accept", ["S-ACCEPT", "S-EQUAL", "S-BALANCES", "S-SETTLE", "S-EXPENSE-ADD", "S-EXPENSE-LIST", "S-PERSON-LIST",
                   "S-PERSIST", "S-DB"], [], *ABC, exp("Ann", "10", EQ3, "Lunch"), "person list", *VIEW),
    seq("empty-ledger", ["S-PERSON-LIST", "S-EXPENSE-LIST", "S-DB"], ["empty"], "person list", "expense list", "balances",
        "settle"),
    # amounts
    seq("amount-float-trap", ["S-AMOUNT", "S-FORMAT"], ["rounding"], *ABC, exp("Ann", "0.29", "--equal Bob"),
        exp("Bob", "4.35", "--equal Cy"), exp("Cy", "1.15", "--exact Ann=1.15"), *VIEW),
    seq("amount-big", ["S-AMOUNT", "S-EQUAL", "S-FORMAT", "S-BALANCES", "S-SETTLE"], ["big"], *ABC,
        exp("Ann", "98765432109876.53", EQ3), exp("Bob", "1000000000000.01", "--equal Cy --equal Bob"), *VIEW),
    seq("amount-negative", ["S-AMOUNT", "S-ERR-NOCHANGE"], ["negative"], *ABC, exp("Ann", "-5", EQ3),
        ["expense", "add", "--payer", "Ann", "--amount=-0.01", "--desc", "x", "--equal", "Bob"], exp("Ann", "+5", EQ3),
        "expense list", "balances"),
    seq("amount-separator", ["S-AMOUNT"], ["separator"], *ABC, exp("Ann", "1,000", EQ3), exp("Ann", "1,5", EQ3),
        ["expense", "add", "--payer", "Ann", "--amount", "1 000", "--desc", "x", "--equal", "Bob"], "expense list"),
    seq("amount-zero", ["S-AMOUNT"], ["zero"], *ABC, exp("Ann", "0", EQ3), exp("Ann", "0.00", EQ3), "expense list", "balances"),
    seq("amount-decimals", ["S-AMOUNT"], ["rounding"], *ABC, exp("Ann", "0.001", EQ3), exp("Ann", "1e-7", EQ3),
        exp("Ann", "12.345", EQ3), exp("Ann", "0.01", "--equal Bob"), "expense list", "balances"),
    seq("format-negative-cents", ["S-FORMAT", "S-BALANCES"], ["negative"], *ABC, exp("Ann", "0.10", "--equal Ann --equal Bob"),
        exp("Cy", "1.50", "--equal Cy"), "balances", "settle"),
    seq("format-zero", ["S-FORMAT", "S-BALANCES", "S-SETTLE"], ["zero"], *ABC, exp("Ann", "5", "--equal Ann"), *VIEW),
    # names
    seq("name-whitespace", ["S-NAME", "S-EXPENSE-REFS"], ["whitespace"], ["person", "add", "\tAnn \n"], ["person", "add", " Bob"],
        "person list", ["expense", "add", "--payer", " Ann\t", "--amount", "4", "--desc", "x", "--equal", "Ann\n", "--equal", "  Bob"],
        "expense list", "balances"),
    seq("name-empty", ["S-NAME"], ["empty"], ["person", "add", ""], ["person", "add", " \t\n"], "person list"),
    seq("name-kept", ["S-NAME", "S-PERSON-LIST", "S-EXPENSE-LIST"], ["unicode", "quote", "separator"],
        *people('Zoë "Z"', "O'Neil, Pat", "李四", "ann", "Ann"), "person list",
        ["expense", "add", "--payer", "李四", "--amount", "5", "--desc", "Café, 🍕", "--equal", 'Zoë "Z"', "--equal", "O'Neil, Pat",
         "--equal", "ann"], *VIEW),
    seq("person-order", ["S-PERSON-LIST", "S-BALANCES"], ["order"], *people("Émile", "ann", "Bob", "Zed", "adam", "Ann"),
        "person list", "balances"),
    seq("person-dup", ["S-PERSON-ADD", "S-ERR-NOCHANGE"], ["duplicate"], *people("Ann", "Ann", " Ann\t", "ann"), "person list"),
    # expense add
    seq("expense-missing-options", ["S-EXPENSE-ADD"], ["missing"], *ABC,
        Usage(["expense", "add", "--amount", "5", "--desc", "x", "--equal", "Ann"]),
        Usage(["expense", "add", "--payer", "Ann", "--desc", "x", "--equal", "Ann"]),
        Usage(["expense", "add", "--payer", "Ann", "--amount", "5", "--equal", "Ann"]), "expense list", "balances"),
    seq("expense-numbers", ["S-EXPENSE-ADD", "S-EXPENSE-REFS"], [], *ABC, exp("Ann", "3", "--equal Bob --equal Cy"),
        exp("Zed", "3", EQ3), exp("Ann", "3", "--equal Bob --equal Zed"), exp("Bob", "1", "--equal Ann"), *VIEW),
    seq("split-kind", ["S-SPLIT-KIND", "S-ERR-NOCHANGE"], ["missing", "extra"], *ABC,
        Usage(["expense", "add", "--payer", "Ann", "--amount", "5", "--desc", "x"]),
        Usage(["expense", "add", "--payer", "Ann", "--amount", "5", "--desc", "x", "--equal", "Ann", "--share", "Bob=1"]),
        Usage(["expense", "add", "--payer", "Ann", "--amount", "5", "--desc", "x", "--exact", "Ann=5", "--equal", "Bob"]),
        "expense list", "balances"),
    seq("split-dup", ["S-SPLIT-DUP", "S-ERR-NOCHANGE"], ["duplicate"], *ABC, exp("Ann", "6", "--equal Ann --equal Bob --equal Ann"),
        ["expense", "add", "--payer", "Ann", "--amount", "6", "--desc", "x", "--equal", "Bob", "--equal", " Bob"],
        exp("Ann", "6", "--share Bob=1 --share Bob=2"), exp("Ann", "6", "--exact Cy=3 --exact Cy=3"), "expense list"),
    # tip
    seq("tip-half-up", ["S-TIP"], ["rounding"], *ABC, exp("Ann", "10.10", "--equal Bob --equal Cy", tip="15"),
        exp("Bob", "0.10", "--equal Cy", tip="5"), exp("Cy", "1.00", "--equal Ann", tip="12.5"), *VIEW),
    seq("tip-zero-or-left-out", ["S-TIP"], ["zero", "missing"], *ABC, exp("Ann", "10.10", "--equal Bob", tip="0"),
        exp("Ann", "7", "--equal Cy"), "expense list", "balances"),
    seq("tip-bad", ["S-TIP", "S-ERR-NOCHANGE"], ["negative"], *ABC,
        ["expense", "add", "--payer", "Ann", "--amount", "10", "--desc", "x", "--tip=-5", "--equal", "Bob"],
        exp("Ann", "10", "--equal Bob", tip="1.234"), exp("Ann", "10", "--equal Bob", tip="ten"), "expense list"),
    # equal and shares
    seq("equal-name-order", ["S-EQUAL"], ["order", "rounding"], *people("Cy", "Ann", "Bob", "ann"),
        exp("Cy", "0.05", "--equal Cy --equal Ann --equal Bob"), exp("ann", "0.01", "--equal ann --equal Bob"), *VIEW),
    seq("shares-remainders", ["S-SHARES"], ["rounding"], *ABC, exp("Ann", "0.10", "--share Ann=3 --share Bob=2 --share Cy=1"),
        exp("Bob", "10", "--share Ann=1 --share Bob=2 --share Cy=4"), *VIEW),
    seq("shares-ties", ["S-SHARES"], ["order"], *ABC, exp("Ann", "1", "--share Cy=1 --share Bob=1 --share Ann=1"),
        exp("Cy", "0.02", "--share Cy=1 --share Bob=1 --share Ann=1"), "expense list"),
    seq("shares-name-with-equals", ["S-SHARES", "S-NAME"], ["separator"], *people("a=b", "Bob"),
        ["expense", "add", "--payer", "Bob", "--amount", "3", "--desc", "x", "--share", "a=b=2", "--share", "Bob=1"], *VIEW),
    seq("shares-bad-weight", ["S-SHARES", "S-ERR-NOCHANGE"], ["zero", "negative"], *ABC,
        exp("Ann", "3", "--share Bob=0 --share Cy=1"), exp("Ann", "3", "--share Bob=-1 --share Cy=2"),
        exp("Ann", "3", "--share Bob=1.5 --share Cy=1"), exp("Ann", "3", "--share Bob --share Cy=1"), "expense list"),
    seq("exact-parts", ["S-EXACT"], ["zero", "boundary"], *ABC, exp("Ann", "10", "--exact Ann=3 --exact Bob=0 --exact Cy=7"),
        exp("Ann", "10", "--exact Bob=4.99 --exact Cy=5"), exp("Ann", "10", "--exact Bob=5.01 --exact Cy=5"),
        exp("Bob", "10", "--exact Ann=5.75 --exact Cy=5.75", tip="15"), *VIEW),
    # lists and settling
    seq("expense-list-unicode", ["S-EXPENSE-LIST"], ["unicode"], *people("Zoë", "Ann"),
        ["expense", "add", "--payer", "Zoë", "--amount", "12.40", "--desc", "Café 🍕 «soir»", "--equal", "Zoë", "--equal", "Ann"],
        "expense list"),
    seq("settle-ties", ["S-SETTLE"], ["order"], *people("Eve", "Dee", "Cy", "Bob", "Ann"),
        exp("Ann", "3", "--exact Cy=1 --exact Dee=1 --exact Eve=1"), exp("Bob", "3", "--exact Eve=1 --exact Dee=1 --exact Cy=1"),
        "balances", "settle"),
    seq("settle-chain", ["S-SETTLE", "S-BALANCES"], [], *people("A", "B", "C", "D"), exp("A", "100", "--equal B --equal C --equal D"),
        exp("B", "50", "--share A=1 --share C=4"), exp("D", "7.77", "--equal A --equal B --equal C --equal D"), "balances", "settle"),
]

HARD = [
    seq("accept-hard", ["S-ACCEPT-HARD", "S-PAYMENT", "S-CSV"], [], *ABC, exp("Ann", "10", EQ3, "Lunch"),
        "payment add Bob Ann 3.33", "settle", "balances", "export --csv OUT"),
    seq("payment-moves-balances", ["S-PAYMENT"], [], *ABC, exp("Ann", "9", EQ3), "payment add Bob Ann 1",
        "payment add Cy Bob 0.50", "balances", "settle", "payment add Bob Ann 3.50", "settle"),
    seq("payment-bad", ["S-PAYMENT", "S-ERR-NOCHANGE"], ["zero", "negative", "duplicate"], *ABC, "payment add Bob Ann 0",
        "payment add Bob Ann -1", "payment add Ann Ann 5", "payment add Bob ' Bob' 5",
        "payment add Zed Ann 1", "payment add Bob Ann 1,5", "balances", "payment add Bob Ann 0.01"),
    seq("csv-quoting", ["S-CSV"], ["separator", "quote", "unicode"], *people('Zoë "Z"', "O'Neil, Pat", "Bob"),
        ["expense", "add", "--payer", "O'Neil, Pat", "--amount", "10", "--desc", "x", "--equal", 'Zoë "Z"', "--equal", "Bob"],
        ["payment", "add", 'Zoë "Z"', "O'Neil, Pat", "5"], "export --csv OUT"),
    seq("csv-empty", ["S-CSV"], ["empty"], *ABC, "export --csv OUT"),
]


def review_csv(table: list[dict]) -> None:
    """The CSV files the reference wrote must be the rows the model wrote."""
    for r in table:
        for n, st in enumerate(r["steps"]):
            want = CSV_REVIEW.get((r["id"], n))
            if want is not None and st["files"][CSV] != {"csv": want}:
                raise SuiteError(f"row {r['id']} step {n}: the reference's CSV {st['files'][CSV]} is not the model's {want}")


def main() -> None:
    for name, rows in (("splitpay", ROWS), ("splitpay-hard", HARD)):
        table = answer(REF, "splitpay", rows)
        review_csv(table)
        write(SUITE, name, table, seed=SEED, generator="gen/gen_splitpay.py")


if __name__ == "__main__":
    main()
