"""Golden tables for libloan (bench-v3 spec `modular`), seed 2026: command sequences on a fresh data file
({dir}/lib.json), every step its own ``python3 -m libloan`` process, so persistence is exercised.

Review built in: every sequence is replayed on :class:`Model`, written here from the prompt alone (regex
parsing, Fraction arithmetic for fines, its own state), and the reference must agree with it on every exit
status, every specified stdout and every CSV file; a disagreement stops the generator.

    python suites/bench-v3/gen/gen_libloan.py
"""
from __future__ import annotations

import datetime as dt
import math
import re
import shlex
from fractions import Fraction
from pathlib import Path

from swarmgym.core.errors import SuiteError
from swarmgym.suitekit.tablegen import answer, row, step, write

SUITE = Path(__file__).resolve().parents[1]
REF = SUITE / "apps" / "libloan" / "reference"
SEED = 2026
DATA = "{dir}/lib.json"
CSV = "{dir}/out.csv"


class Refused(Exception):
    """The prompt calls the command an error."""


class Model:
    """The prompt's library: members, books, loans, fines (cents), holds."""

    def __init__(self) -> None:
        self.members: dict[str, dict] = {}
        self.books: dict[str, dict] = {}
        self.loans: list[dict] = []
        self.csv: list[list[str]] | None = None
        self.broken = False  # the data file is not JSON: every command is an error

    # values -------------------------------------------------------------------------------------
    @staticmethod
    def ident(s: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9-]+", s, re.ASCII):
            raise Refused
        return s

    @staticmethod
    def text(s: str) -> str:
        t = s.strip(" \t\n")
        if not t:
            raise Refused
        return t

    @staticmethod
    def cents(s: str) -> int:
        if not re.fullmatch(r"[0-9]+(\.[0-9]{1,2})?", s):
            raise Refused
        return int(Fraction(s) * 100)

    @staticmethod
    def day(s: str) -> dt.date:
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", s):
            raise Refused
        y, m, d = map(int, s.split("-"))
        try:
            return dt.date(y, m, d)
        except ValueError:
            raise Refused from None

    @staticmethod
    def money(c: int) -> str:
        return f"{c // 100}.{c % 100:02d}"

    @staticmethod
    def fine(price: int, late: int) -> int:
        if late <= 0:
            return 0
        return min(price, math.floor(Fraction(late * price, 40) + Fraction(1, 2)))

    # rules ----------------------------------------------------------------------------------------
    def loan(self, mid: str, bid: str) -> dict | None:
        return next((x for x in self.loans if x["mid"] == mid and x["bid"] == bid), None)

    def need(self, mid: str, bid: str | None = None) -> None:
        if mid not in self.members or (bid is not None and bid not in self.books):
            raise Refused

    def run(self, argv: list[str]) -> str | None:
        """Apply one command; the stdout the prompt fixes (None: left open). Raises Refused on an error."""
        if self.broken:
            raise Refused
        argv = [p for a in argv for p in (a.split("=", 1) if a.startswith("--") and "=" in a else [a])]
        opt = {argv[i][2:]: argv[i + 1] for i in range(len(argv) - 1) if argv[i].startswith("--")}
        pos = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or not argv[i - 1].startswith("--"))]
        g, c = pos[0], pos[1]
        if (g, c) == ("member", "add"):
            mid, name = self.ident(pos[2]), self.text(opt["name"])
            if mid in self.members:
                raise Refused
            self.members[mid] = {"name": name, "owes": 0}
            return None
        if (g, c) == ("member", "list"):
            return "".join(f"{k} {m['name']}: {sum(x['mid'] == k for x in self.loans)} on loan, owes {self.money(m['owes'])}\n"
                           for k, m in sorted(self.members.items()))
        if (g, c) == ("book", "add"):
            bid, title, price = self.ident(pos[2]), self.text(opt["title"]), self.cents(opt["price"])
            n = opt.get("copies", "1")
            if not re.fullmatch(r"[0-9]+", n) or int(n) < 1 or bid in self.books:
                raise Refused
            self.books[bid] = {"title": title, "price": price, "copies": int(n), "holds": []}
            return None
        if (g, c) == ("book", "list"):
            return "".join(f"{k} {b['title']}: {b['copies'] - sum(x['bid'] == k for x in self.loans)} of {b['copies']} available\n"
                           for k, b in sorted(self.books.items()))
        if (g, c) == ("loan", "out"):
            mid, bid, day = pos[2], pos[3], self.day(opt["on"])
            self.need(mid, bid)
            book = self.books[bid]
            if (self.loan(mid, bid) or sum(x["mid"] == mid for x in self.loans) >= 3
                    or self.members[mid]["owes"] >= 500 or (book["holds"] and book["holds"][0] != mid)
                    or sum(x["bid"] == bid for x in self.loans) >= book["copies"]):
                raise Refused
            if book["holds"]:
                book["holds"].pop(0)
            due = day + dt.timedelta(days=14)
            self.loans.append({"mid": mid, "bid": bid, "lent": day, "due": due, "renewed": 0})
            return f"due {due.isoformat()}\n"
        if (g, c) in (("loan", "return"), ("loan", "renew")):
            mid, bid, day = pos[2], pos[3], self.day(opt["on"])
            self.need(mid, bid)
            x = self.loan(mid, bid)
            if x is None:
                raise Refused
            if c == "return":
                if day < x["lent"]:
                    raise Refused
                f = self.fine(self.books[bid]["price"], (day - x["due"]).days)
                self.members[mid]["owes"] += f
                self.loans.remove(x)
                return f"fine {self.money(f)}\n"
            if day > x["due"] or x["renewed"] >= 2 or self.books[bid]["holds"]:
                raise Refused
            x["due"] += dt.timedelta(days=14)
            x["renewed"] += 1
            return f"due {x['due'].isoformat()}\n"
        if (g, c) == ("fine", "pay"):
            self.need(pos[2])
            amount, m = self.cents(pos[3]), self.members[pos[2]]
            if amount <= 0 or amount > m["owes"]:
                raise Refused
            m["owes"] -= amount
            return f"owes {self.money(m['owes'])}\n"
        if (g, c) == ("report", "overdue"):
            day = self.day(opt["on"])
            rows = sorted((x["due"], x["mid"], x["bid"]) for x in self.loans if x["due"] < day)
            lines = [(mid, bid, due, (day - due).days, self.fine(self.books[bid]["price"], (day - due).days))
                     for due, mid, bid in rows]
            if "csv" in opt:
                self.csv = [["member", "name", "book", "title", "due", "days_late", "fine"]] + [
                    [mid, self.members[mid]["name"], bid, self.books[bid]["title"], due.isoformat(), str(late), self.money(f)]
                    for mid, bid, due, late, f in lines]
                return None
            if not lines:
                return "no overdue loans\n"
            return "".join(f"{mid} {bid} due {due.isoformat()}, {late} days late, fine {self.money(f)}\n"
                           for mid, bid, due, late, f in lines)
        if (g, c) == ("report", "fines"):
            owing = [(k, m) for k, m in sorted(self.members.items()) if m["owes"] > 0]
            return "".join(f"{k} {m['name']} {self.money(m['owes'])}\n" for k, m in owing) + \
                f"total {self.money(sum(m['owes'] for _, m in owing))}\n"
        if (g, c) == ("hold", "place"):
            mid, bid = pos[2], pos[3]
            self.need(mid, bid)
            if self.loan(mid, bid) or mid in self.books[bid]["holds"]:
                raise Refused
            self.books[bid]["holds"].append(mid)
            return f"position {len(self.books[bid]['holds'])}\n"
        if (g, c) == ("hold", "list"):
            if pos[2] not in self.books:
                raise Refused
            return "".join(f"{m}\n" for m in self.books[pos[2]]["holds"])
        raise SuiteError(f"the model does not know {argv}")


class Usage(list):
    """A command with a required option left out: argparse's usage error (any non-zero exit)."""


CSV_REVIEW: dict[tuple[str, int], list[list[str]]] = {}


def seq(row_id: str, req: list[str], edges: list[str], *cmds, files_in: dict[str, str] | None = None) -> dict:
    """A golden row from commands (a string split like a shell, or an argv list), reviewed by the model."""
    m, steps = Model(), []
    m.broken = bool(files_in and files_in.get(DATA, "") != "")  # a non-empty file given here is never JSON
    for n, cmd in enumerate(cmds):
        argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
        full = ["--data", DATA, *[a.replace("OUT", CSV) for a in argv]]
        if isinstance(cmd, Usage):
            steps.append(step(full, usage=True))
            continue
        m.csv = None
        try:
            want = m.run(argv)
            code = 0
        except Refused:
            want, code = None, 1
        if m.csv is not None:
            CSV_REVIEW[(row_id, n)] = m.csv
            steps.append(step(full, out="any", expect_exit=0, files={CSV: "csv"}))
        elif want is None:
            steps.append(step(full, out="any", expect_exit=code))
        else:
            steps.append(step(full, expect_exit=code, expect=lambda out, w=want: out == w))
    return row(row_id, req, edges, *steps, files_in=files_in)


ACCEPT = ["member add M1 --name Ada", "book add B1 --title Dune --price 12.99", "loan out M1 B1 --on 2026-03-01",
          "loan return M1 B1 --on 2026-03-18"]
M1B1 = ["member add M1 --name Ada", "book add B1 --title Dune --price 1"]

ROWS = [
    seq("accept", ["L-ACCEPT", "L-LOAN-OUT", "L-RETURN", "L-FINE", "L-FINE-OWED", "L-FINES-REPORT", "L-PERSIST",
                   "L-MEMBER-LIST", "L-BOOK-LIST", "L-STORE-JSON"], [],
        *ACCEPT, "report fines", "member list", "book list", "report overdue --on 2026-03-20"),
    seq("store-missing-file", ["L-STORE-EMPTY", "L-MEMBER-LIST", "L-BOOK-LIST", "L-OVERDUE", "L-FINES-REPORT"],
        ["empty"], "member list", "book list", "report overdue --on 2026-01-01", "report fines"),
    seq("store-empty-file", ["L-STORE-EMPTY", "L-PERSIST"], ["empty"],
        "member list", "report fines", "member add M1 --name Ada", "member list", files_in={DATA: ""}),
    seq("store-not-json", ["L-STORE-BAD", "L-ERR-FORMAT", "L-ERR-EXIT"], [],
        "member list", "member add M1 --name Ada", files_in={DATA: "{members: [}\n"}),
    # ids
    seq("id-empty", ["L-ID"], ["empty"], ["member", "add", "", "--name", "Ada"], ["book", "add", "", "--title", "T", "--price", "1"],
        "member list", "book list"),
    seq("id-whitespace", ["L-ID"], ["whitespace"], ["member", "add", "M 1", "--name", "Ada"],
        ["book", "add", "B\t1", "--title", "T", "--price", "1"], ["member", "add", " M2", "--name", "Bo"], "member list", "book list"),
    seq("id-separator", ["L-ID"], ["separator"], "member add M,1 --name Ada", "book add B_1 --title T --price 1",
        "member add M-1 --name Ada", "book add B-7 --title T --price 1", "member list", "book list"),
    seq("id-unicode", ["L-ID"], ["unicode"], "member add É1 --name Ada", "book add B١ --title T --price 1",
        "member list", "book list"),
    # names and titles
    seq("text-whitespace", ["L-TEXT"], ["whitespace"], ["member", "add", "M1", "--name", "\t Ada Lovelace \n"],
        ["book", "add", "B1", "--title", "  Dune\t", "--price", "1"], "member list", "book list"),
    seq("text-empty", ["L-TEXT"], ["empty"], ["member", "add", "M1", "--name", ""], ["member", "add", "M2", "--name", " \t\n"],
        ["book", "add", "B1", "--title", "   ", "--price", "1"], "member list", "book list"),
    seq("text-kept", ["L-TEXT"], ["unicode", "quote", "separator"], ["member", "add", "M1", "--name", 'Zoë "Z", 李'],
        ["book", "add", "B1", "--title", "Le Petit Prince, l'édition", "--price", "1"], "member list", "book list"),
    # prices
    seq("price-float-trap", ["L-PRICE", "L-FINE"], ["rounding"], "member add M1 --name Ada",
        "book add B1 --title A --price 0.29", "book add B2 --title B --price 4.35", "book add B3 --title C --price 12.345",
        "loan out M1 B1 --on 2026-01-01", "loan out M1 B2 --on 2026-01-01", "loan out M1 B3 --on 2026-01-01",
        "loan return M1 B1 --on 2026-03-01", "loan return M1 B2 --on 2026-03-01", "report fines"),
    seq("price-negative", ["L-PRICE"], ["negative"], "book add B1 --title A --price -1", "book add B2 --title B --price=-0.5",
        "book add B3 --title C --price +1", "book list"),
    seq("price-zero", ["L-PRICE", "L-FINE"], ["zero"], "member add M1 --name Ada", "book add B1 --title Free --price 0",
        "loan out M1 B1 --on 2026-01-01", "loan return M1 B1 --on 2026-02-01", "member list"),
    seq("price-big", ["L-PRICE", "L-FINE", "L-MONEY"], ["big", "rounding"], "member add M1 --name Ada",
        "book add B1 --title Gold --price 9999999999.80", "loan out M1 B1 --on 2026-01-01",
        "report overdue --on 2026-01-16", "loan return M1 B1 --on 2026-01-16", "member list", "report fines"),
    seq("money-big-cap", ["L-MONEY", "L-FINE"], ["big"], "member add M1 --name Ada",
        "book add B1 --title Gold --price 123456789012.34", "loan out M1 B1 --on 2026-01-01",
        "loan return M1 B1 --on 2026-06-01", "report fines"),
    # copies
    seq("copies", ["L-COPIES", "L-BOOK-LIST"], ["missing", "zero", "negative"], "book add B1 --title A --price 1",
        "book add B2 --title B --price 1 --copies 0", "book add B3 --title C --price 1 --copies=-2",
        "book add B4 --title D --price 1 --copies 2.5", "book add B5 --title E --price 1 --copies 3", "book list"),
    # dates
    seq("date-calendar", ["L-DATE", "L-LOAN-OUT"], ["boundary"], *M1B1, "loan out M1 B1 --on 2026-02-29",
        "loan out M1 B1 --on 2026-13-01", "loan out M1 B1 --on 2026-04-31", "member list", "loan out M1 B1 --on 2028-02-29"),
    seq("date-missing", ["L-DATE"], ["missing"], *M1B1, Usage(["loan", "out", "M1", "B1"]), "member list"),
    seq("due-year-end", ["L-LOAN-OUT"], ["boundary"], *M1B1, "book add B2 --title X --price 1",
        "loan out M1 B1 --on 2026-12-25", "loan out M1 B2 --on 2027-02-20", "member list"),
    # members and books
    seq("member-dup", ["L-MEMBER-ADD", "L-ERR-NOCHANGE"], ["duplicate"], "member add M1 --name Ada",
        "member add M1 --name Bob", "member list"),
    seq("member-no-name", ["L-MEMBER-ADD"], ["missing"], Usage(["member", "add", "M1"]), "member list"),
    seq("member-order", ["L-MEMBER-LIST"], ["order"], "member add M2 --name Bo", "member add M10 --name Cy",
        "member add M1 --name Ada", "member add A-3 --name Di", "member list"),
    seq("book-dup", ["L-BOOK-ADD", "L-ERR-NOCHANGE"], ["duplicate"], "book add B1 --title Dune --price 1",
        "book add B1 --title Emma --price 2 --copies 4", "book list"),
    seq("book-no-price", ["L-BOOK-ADD"], ["missing"], Usage(["book", "add", "B1", "--title", "Dune"]), "book list"),
    seq("book-order", ["L-BOOK-LIST"], ["order"], "book add B9 --title Nine --price 1", "book add B10 --title Ten --price 1",
        "book add A1 --title One --price 1 --copies 2", "book list"),
    # loan rules
    seq("loan-unknown", ["L-LOAN-UNKNOWN", "L-ERR-FORMAT", "L-ERR-EXIT"], [], *M1B1, "loan out M9 B1 --on 2026-01-01",
        "loan out M1 B9 --on 2026-01-01", "book list"),
    seq("loan-last-copy", ["L-LOAN-AVAIL", "L-BOOK-LIST"], ["boundary"], "member add M1 --name A", "member add M2 --name B",
        "member add M3 --name C", "book add B1 --title T --price 1 --copies 2", "loan out M1 B1 --on 2026-01-01",
        "loan out M2 B1 --on 2026-01-01", "book list", "loan out M3 B1 --on 2026-01-02", "loan return M1 B1 --on 2026-01-03",
        "loan out M3 B1 --on 2026-01-03", "book list"),
    seq("loan-limit", ["L-LOAN-LIMIT", "L-MEMBER-LIST"], ["boundary"], "member add M1 --name Ada",
        *[f"book add B{i} --title T{i} --price 1" for i in range(1, 5)], *[f"loan out M1 B{i} --on 2026-01-01" for i in range(1, 5)],
        "member list", "loan return M1 B2 --on 2026-01-02", "loan out M1 B4 --on 2026-01-02", "member list"),
    seq("loan-twice", ["L-LOAN-TWICE", "L-ERR-NOCHANGE"], ["duplicate"], "member add M1 --name Ada",
        "book add B1 --title T --price 1 --copies 2", "loan out M1 B1 --on 2026-01-01", "loan out M1 B1 --on 2026-01-02",
        "book list", "member list"),
    seq("owes-five", ["L-LOAN-OWES", "L-PAY"], ["boundary"], "member add M1 --name Ada", "book add B1 --title T --price 20",
        "loan out M1 B1 --on 2026-01-01", "loan return M1 B1 --on 2026-01-25", "loan out M1 B1 --on 2026-02-01",
        "fine pay M1 0.01", "loan out M1 B1 --on 2026-02-01", "member list"),
    # returns and fines
    seq("return-on-time", ["L-RETURN", "L-FINE"], ["boundary", "zero"], *M1B1, "book add B2 --title X --price 1",
        "loan out M1 B1 --on 2026-01-01", "loan out M1 B2 --on 2026-01-01", "loan return M1 B1 --on 2026-01-15",
        "loan return M1 B2 --on 2026-01-01", "member list", "book list"),
    seq("fine-days", ["L-FINE"], ["boundary", "rounding"], "member add M1 --name Ada",
        *[f"book add B{i} --title T --price 1" for i in range(1, 4)], *[f"loan out M1 B{i} --on 2026-01-01" for i in range(1, 4)],
        "loan return M1 B1 --on 2026-01-16", "loan return M1 B2 --on 2026-02-23", "loan return M1 B3 --on 2026-02-24",
        "report fines"),
    seq("fine-half-cent", ["L-FINE", "L-FINE-OWED"], ["rounding"], "member add M1 --name Ada",
        "book add B1 --title A --price 0.20", "book add B2 --title B --price 0.60", "book add B3 --title C --price 12.99",
        *[f"loan out M1 B{i} --on 2026-01-01" for i in range(1, 4)], "loan return M1 B1 --on 2026-01-16",
        "loan return M1 B2 --on 2026-01-16", "loan return M1 B3 --on 2026-01-18", "member list"),
    seq("return-no-loan", ["L-RETURN-NOLOAN"], ["duplicate"], *M1B1, "loan return M1 B1 --on 2026-01-02",
        "loan out M1 B1 --on 2026-01-01", "loan return M1 B1 --on 2026-01-20", "loan return M1 B1 --on 2026-01-21",
        "member list"),
    seq("return-early", ["L-RETURN-EARLY", "L-ERR-NOCHANGE"], ["negative"], *M1B1, "loan out M1 B1 --on 2026-03-10",
        "loan return M1 B1 --on 2026-03-09", "book list", "member list"),
    # paying
    seq("pay-zero-negative", ["L-PAY"], ["zero", "negative"], *M1B1, "loan out M1 B1 --on 2026-01-01",
        "loan return M1 B1 --on 2026-01-25", "fine pay M1 0", "fine pay M1 0.00", "fine pay M1 -0.10", "member list"),
    seq("pay-exact-and-over", ["L-PAY", "L-FINES-REPORT"], ["boundary", "zero"], *M1B1, "member add M2 --name Bo",
        "loan out M1 B1 --on 2026-01-01", "loan return M1 B1 --on 2026-01-25", "fine pay M1 0.26", "fine pay M1 0.25",
        "report fines", "fine pay M2 0.01", "member list"),
    seq("pay-float-trap", ["L-PAY"], ["rounding"], "member add M1 --name Ada", "book add B1 --title A --price 0.29",
        "loan out M1 B1 --on 2026-01-01", "loan return M1 B1 --on 2026-03-01", "fine pay M1 0.125", "fine pay M1 0.29",
        "member list"),
    # reports
    seq("overdue-boundary", ["L-OVERDUE"], ["boundary", "empty"], *M1B1, "loan out M1 B1 --on 2026-01-01",
        "report overdue --on 2026-01-15", "report overdue --on 2026-01-16", "report overdue --on 2026-02-25"),
    seq("overdue-order", ["L-OVERDUE"], ["order"], "member add M2 --name B", "member add M10 --name C", "member add M1 --name A",
        "book add B2 --title X --price 4", "book add B1 --title Y --price 2 --copies 3",
        "loan out M2 B1 --on 2026-01-03", "loan out M10 B1 --on 2026-01-03", "loan out M1 B2 --on 2026-01-03",
        "loan out M1 B1 --on 2026-01-02", "report overdue --on 2026-01-20"),
    seq("fines-report", ["L-FINES-REPORT"], ["order", "zero"], "member add M2 --name Bo", "member add M10 --name Cy",
        "member add M1 --name Ada", "book add B1 --title T --price 2 --copies 3", "loan out M2 B1 --on 2026-01-01",
        "loan out M10 B1 --on 2026-01-01", "loan out M1 B1 --on 2026-01-01", "loan return M2 B1 --on 2026-01-17",
        "loan return M10 B1 --on 2026-01-16", "loan return M1 B1 --on 2026-01-18", "fine pay M1 0.15", "report fines"),
]

HARD = [
    seq("accept-hard", ["L-ACCEPT-HARD", "L-RENEW", "L-HOLD-PLACE", "L-RENEW-HOLDS", "L-CSV"], [],
        *ACCEPT, "member add M2 --name Bo", "loan out M1 B1 --on 2026-04-01", "loan renew M1 B1 --on 2026-04-15",
        "hold place M2 B1", "loan renew M1 B1 --on 2026-04-20", "report overdue --on 2026-05-01 --csv OUT"),
    seq("renew-dates", ["L-RENEW"], ["boundary"], *M1B1, "book add B2 --title Two --price 1",
        "loan renew M1 B1 --on 2026-01-05", "loan out M1 B1 --on 2026-01-01", "loan out M1 B2 --on 2026-01-01",
        "loan renew M1 B1 --on 2026-01-05", "loan renew M1 B1 --on 2026-01-30", "loan renew M1 B2 --on 2026-01-15",
        "report overdue --on 2026-01-30"),
    seq("renew-limit", ["L-RENEW-LIMIT"], ["boundary"], *M1B1, "loan out M1 B1 --on 2026-01-01",
        "loan renew M1 B1 --on 2026-01-02", "loan renew M1 B1 --on 2026-01-03", "loan renew M1 B1 --on 2026-01-04",
        "report overdue --on 2026-02-13"),
    seq("renew-holds", ["L-RENEW-HOLDS", "L-HOLD-PLACE"], [], *M1B1, "member add M2 --name Bo", "loan out M1 B1 --on 2026-01-01",
        "hold place M2 B1", "loan renew M1 B1 --on 2026-01-10", "report overdue --on 2026-01-16"),
    seq("hold-place", ["L-HOLD-PLACE"], ["duplicate"], *M1B1, "member add M2 --name Bo", "member add M3 --name Cy",
        "loan out M1 B1 --on 2026-01-01", "hold place M1 B1", "hold place M3 B1", "hold place M2 B1", "hold place M3 B1",
        "hold place M9 B1", "hold place M2 B9", "hold list B1"),
    seq("hold-list", ["L-HOLD-LIST"], ["empty", "order"], *M1B1, "member add M2 --name Bo", "member add M3 --name Cy",
        "hold list B1", "hold place M3 B1", "hold place M1 B1", "hold place M2 B1", "hold list B1"),
    seq("hold-head", ["L-HOLD-HEAD", "L-HOLD-LIST"], ["order"], *M1B1, "member add M2 --name Bo", "member add M3 --name Cy",
        "book add B2 --title Two --price 1 --copies 2", "hold place M3 B2", "hold place M2 B2",
        "loan out M2 B2 --on 2026-01-01", "loan out M1 B2 --on 2026-01-01", "loan out M3 B2 --on 2026-01-01",
        "hold list B2", "loan out M2 B2 --on 2026-01-01", "hold list B2", "loan out M1 B2 --on 2026-01-01", "book list"),
    seq("csv-quoting", ["L-CSV"], ["separator", "quote", "unicode"],
        ["member", "add", "M2", "--name", 'Zoë "Z", 李'], ["member", "add", "M1", "--name", "O'Neil, Pat"],
        ["book", "add", "B1", "--title", 'Dune, "Messiah"', "--price", "12.99", "--copies", "2"],
        "loan out M2 B1 --on 2026-01-01", "loan out M1 B1 --on 2026-01-02", "report overdue --on 2026-02-01 --csv OUT"),
    seq("csv-empty", ["L-CSV"], ["empty"], *M1B1, "loan out M1 B1 --on 2026-01-01", "report overdue --on 2026-01-15 --csv OUT"),
]


def review_csv(table: list[dict]) -> None:
    """The CSV files the reference wrote must be the rows the model wrote."""
    for r in table:
        for n, st in enumerate(r["steps"]):
            want = CSV_REVIEW.get((r["id"], n))
            if want is not None and st["files"][CSV] != {"csv": want}:
                raise SuiteError(f"row {r['id']} step {n}: the reference's CSV {st['files'][CSV]} is not the model's {want}")


def main() -> None:
    for name, rows in (("libloan", ROWS), ("libloan-hard", HARD)):
        table = answer(REF, "libloan", rows)
        review_csv(table)
        write(SUITE, name, table, seed=SEED, generator="gen/gen_libloan.py")


if __name__ == "__main__":
    main()
