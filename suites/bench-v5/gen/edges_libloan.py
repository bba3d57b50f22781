"""libloan's rows of the shared edge classes (issue #30): the prompt's own prices, dates and fines verbatim,
an impossible DATE on every command that takes one, AMOUNT forms the prompt refuses, superscript digits in
N, a trailing line break in an id, ids that differ only in case, and an empty list printing nothing.

Error steps ask for one ``error:`` line and exit 1 (stdout is left open: "what an error prints on stdout is
up to you"); a fresh read after each shows nothing changed.  Arabic-Indic or fullwidth digits in PRICE, N
or AMOUNT are left out ("digits" may or may not mean ASCII digits); ``²`` is a digit for ``str.isdigit``
but no number, so every reading of the prompt refuses it.  NAME with Unicode blanks is left out (the prompt
lists "spaces, tabs, newlines").
"""
from __future__ import annotations

from typing import Any

from edges import _step

IMPOSSIBLE = ["2026-02-30", "2025-02-29", "2026-13-01", "2026-04-31", "2026-00-10", "2026-01-32"]


def _d(*argv: str) -> list[str]:
    return ["--data", "{dir}/lib.json", *argv]


def _ok(*argv: str, stdout: str | None = None, out: str = "exact") -> dict[str, Any]:
    return _step(_d(*argv), out, **({"stdout": stdout} if stdout is not None else {}))


def _any(*argv: str) -> dict[str, Any]:
    return _step(_d(*argv), "any")


def _err(*argv: str) -> dict[str, Any]:
    return _step(_d(*argv), "any", exit=1, err="error:")


def _row(rid: str, req: list[str], edges: list[str], *steps: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"edge-{rid}", "req": req, "edges": edges, "steps": list(steps)}


def example() -> list[dict[str, Any]]:
    """PRICE 12, 12.5, 0.29, 9999999999.80 (each member returns the book 45 days late: the fine is the price),
    the fine examples (1.00 one day late, 12.99 three days late, 1.00 fifty days late), 2028-02-29, B-7."""
    prices = ["12", "12.5", "0.29", "9999999999.80"]
    steps = []
    for n, price in enumerate(prices, 1):
        steps += [_any("member", "add", f"M{n}", "--name", "Ada"),
                  _any("book", "add", f"B-{n}", "--title", "Dune", "--price", price),
                  _ok("loan", "out", f"M{n}", f"B-{n}", "--on", "2026-01-01", stdout="due 2026-01-15\n"),
                  _ok("loan", "return", f"M{n}", f"B-{n}", "--on", "2026-03-01")]
    fines = [("1.00", "2026-03-16", "fine 0.03\n"), ("12.99", "2026-03-18", "fine 0.97\n"),
             ("1.00", "2026-05-04", "fine 1.00\n")]
    fsteps = []
    for n, (price, back, fine) in enumerate(fines, 1):
        fsteps += [_any("member", "add", f"M{n}", "--name", "Ada"),
                   _any("book", "add", "B-7" if n == 1 else f"B{n}", "--title", "Dune", "--price", price),
                   _ok("loan", "out", f"M{n}", "B-7" if n == 1 else f"B{n}", "--on", "2026-03-01",
                       stdout="due 2026-03-15\n"),
                   _ok("loan", "return", f"M{n}", "B-7" if n == 1 else f"B{n}", "--on", back, stdout=fine)]
    return [
        _row("example-prices", ["L-PRICE", "L-FINE", "L-MONEY"], ["example"],
             *steps, _ok("report", "fines", stdout="M1 Ada 12.00\nM2 Ada 12.50\nM3 Ada 0.29\nM4 Ada 9999999999.80\n"
                                                    "total 10000000024.59\n")),
        _row("example-pay-amounts", ["L-PRICE", "L-PAY"], ["example"],
             *steps[:4], _ok("fine", "pay", "M1", "0.29", stdout="owes 11.71\n"),
             _ok("fine", "pay", "M1", "1.5", stdout="owes 10.21\n"),
             _ok("fine", "pay", "M1", "10", stdout="owes 0.21\n"), _ok("member", "list")),
        _row("example-fines", ["L-PRICE", "L-FINE", "L-RETURN"], ["example"],
             *fsteps, _ok("report", "fines", stdout="M1 Ada 0.03\nM2 Ada 0.97\nM3 Ada 1.00\ntotal 2.00\n")),
        _row("example-leap-day", ["L-DATE", "L-LOAN-OUT"], ["example", "calendar"],
             _any("member", "add", "M1", "--name", "Ada"), _any("book", "add", "B1", "--title", "T", "--price", "1"),
             _err("loan", "out", "M1", "B1", "--on", "2026-02-30"),
             _ok("loan", "out", "M1", "B1", "--on", "2028-02-29", stdout="due 2028-03-14\n"),
             _ok("loan", "return", "M1", "B1", "--on", "2028-03-15", stdout="fine 0.03\n")),
    ]


def _lent() -> list[dict[str, Any]]:
    return [_any("member", "add", "M1", "--name", "Ada"),
            _any("book", "add", "B1", "--title", "Dune", "--price", "1", "--copies", "2"),
            _ok("loan", "out", "M1", "B1", "--on", "2025-01-01", stdout="due 2025-01-15\n")]


def calendar() -> list[dict[str, Any]]:
    """Every impossible DATE on loan out, loan return and report overdue, each followed by a fresh read."""
    reads = [_ok("member", "list"), _ok("book", "list")]
    return [
        _row("calendar-loan-out", ["L-DATE", "L-ERR-NOCHANGE"], ["calendar", "error_reach"],
             _any("member", "add", "M1", "--name", "Ada"), _any("book", "add", "B1", "--title", "T", "--price", "1"),
             *(_err("loan", "out", "M1", "B1", "--on", d) for d in IMPOSSIBLE), *reads),
        _row("calendar-loan-return", ["L-DATE", "L-ERR-NOCHANGE"], ["calendar", "error_reach"],
             *_lent(), *(_err("loan", "return", "M1", "B1", "--on", d) for d in IMPOSSIBLE), *reads,
             _ok("report", "fines", stdout="total 0.00\n")),
        _row("calendar-report-overdue", ["L-DATE"], ["calendar", "error_reach"],
             *_lent(), *(_err("report", "overdue", "--on", d) for d in IMPOSSIBLE),
             _ok("report", "overdue", "--on", "2025-01-16", stdout="M1 B1 due 2025-01-15, 1 days late, fine 0.03\n")),
        _row("calendar-month-and-year-ends", ["L-DATE", "L-LOAN-OUT", "L-RETURN"], ["calendar"],
             _any("member", "add", "M1", "--name", "Ada"),
             *(_any("book", "add", f"B{n}", "--title", "T", "--price", "4") for n in range(1, 4)),
             _ok("loan", "out", "M1", "B1", "--on", "2026-12-31", stdout="due 2027-01-14\n"),
             _ok("loan", "out", "M1", "B2", "--on", "2028-02-15", stdout="due 2028-02-29\n"),
             _ok("loan", "out", "M1", "B3", "--on", "2027-02-28", stdout="due 2027-03-14\n"),
             _ok("report", "overdue", "--on", "2028-03-01"),
             _ok("loan", "return", "M1", "B2", "--on", "2028-03-01", stdout="fine 0.10\n"),
             _ok("loan", "return", "M1", "B1", "--on", "2027-01-15", stdout="fine 0.10\n")),
    ]


def calendar_hard() -> list[dict[str, Any]]:
    return [
        _row("calendar-renew-and-csv", ["L-DATE", "L-RENEW"], ["calendar", "error_reach"],
             *_lent(), *(_err("loan", "renew", "M1", "B1", "--on", d) for d in IMPOSSIBLE),
             *(_err("report", "overdue", "--on", d, "--csv", "{dir}/o.csv") for d in IMPOSSIBLE),
             _ok("loan", "renew", "M1", "B1", "--on", "2025-01-15", stdout="due 2025-01-29\n")),
        _row("reach-unknown-hard", ["L-HOLD-LIST", "L-HOLD-PLACE", "L-RENEW"], ["error_reach"],
             _any("member", "add", "M1", "--name", "Ada"), _any("book", "add", "B1", "--title", "T", "--price", "1"),
             _err("hold", "list", "B9"), _err("hold", "place", "M9", "B1"), _err("hold", "place", "M1", "B9"),
             _err("loan", "renew", "M9", "B1", "--on", "2026-01-01"), _err("loan", "renew", "M1", "B9", "--on", "2026-01-01"),
             _ok("hold", "list", "B1", stdout="")),
    ]


def numbers() -> list[dict[str, Any]]:
    """AMOUNT and PRICE forms the prompt refuses: a sign, an exponent, three decimals, blanks, no digits (``.5``
    and ``5.`` are left out: whether they are "digits with at most two decimals" is open)."""
    bad = ["+0.10", "1e1", "0.1e1", "0.100", " 0.10", "0.10 ", "1,00", "abc", "\u00b9", "0x10"]
    return [
        _row("reach-unknown-ids", ["L-DATE", "L-LOAN-UNKNOWN", "L-RETURN-NOLOAN"], ["error_reach"],
             *_lent(), _err("loan", "return", "M9", "B1", "--on", "2025-01-02"),
             _err("loan", "return", "M1", "B9", "--on", "2025-01-02"), _err("fine", "pay", "M9", "0.01"),
             _err("loan", "out", "M1", "B1", "--on", "2025-13-01"), _err("loan", "out", "M 1", "B1", "--on", "2025-01-02"),
             _ok("member", "list"), _ok("book", "list")),
        _row("number-amount-forms", ["L-PAY", "L-ERR-NOCHANGE"], ["number_form", "error_reach"],
             *_lent(), _ok("loan", "return", "M1", "B1", "--on", "2025-02-14", stdout="fine 0.75\n"),
             *(_err("fine", "pay", "M1", a) for a in bad), _ok("member", "list"),
             _ok("fine", "pay", "M1", "0.5", stdout="owes 0.25\n"), _ok("fine", "pay", "M1", "0.25", stdout="owes 0.00\n")),
        _row("number-price-forms", ["L-PRICE"], ["number_form", "error_reach"],
             *(_err("book", "add", f"B{n}", "--title", "T", "--price", p) for n, p in enumerate(bad)),
             _ok("book", "list", stdout="")),
        _row("number-copies-superscript", ["L-COPIES"], ["unicode_digit"],
             _err("book", "add", "B1", "--title", "T", "--price", "1", "--copies", "\u00b2"),
             _err("book", "add", "B2", "--title", "T", "--price", "1", "--copies", "1\u00b2"),
             _err("book", "add", "B3", "--title", "T", "--price", "\u00b2"),
             _ok("book", "list", stdout="")),
    ]


def ids_and_lists() -> list[dict[str, Any]]:
    return [
        _row("id-trailing-newline", ["L-ID"], ["line_end"],
             _err("member", "add", "M1\n", "--name", "Ada"), _err("book", "add", "B1\n", "--title", "T", "--price", "1"),
             _err("member", "add", "M1\r\n", "--name", "Ada"),
             _ok("member", "list", stdout=""), _ok("book", "list", stdout="")),
        _row("id-case", ["L-MEMBER-ADD", "L-BOOK-ADD"], ["case"],
             _any("member", "add", "M1", "--name", "Ada"), _any("member", "add", "m1", "--name", "Bo"),
             _any("book", "add", "b-7", "--title", "Small", "--price", "1"),
             _any("book", "add", "B-7", "--title", "Big", "--price", "2"),
             _ok("loan", "out", "m1", "B-7", "--on", "2026-01-01", stdout="due 2026-01-15\n"),
             _ok("member", "list", stdout="M1 Ada: 0 on loan, owes 0.00\nm1 Bo: 1 on loan, owes 0.00\n"),
             _ok("book", "list", stdout="B-7 Big: 0 of 1 available\nb-7 Small: 1 of 1 available\n")),
        _row("lists-empty-bytes", ["L-MEMBER-LIST", "L-BOOK-LIST"], ["empty_output"],
             _ok("member", "list", stdout=""), _ok("book", "list", stdout=""),
             _any("member", "add", "M1", "--name", "Ada"), _ok("book", "list", stdout="")),
    ]


ROWS: dict[str, list[dict[str, Any]]] = {
    "libloan": [*example(), *calendar(), *numbers(), *ids_and_lists()],
    "libloan-hard": calendar_hard(),
}
