"""orderfsm's rows of the shared edge classes (issue #30): the prompt's own examples verbatim, an impossible
TIME and every error sentence on every command that takes a TIME or an ORDER, Unicode digits and a trailing
line break in an ORDER, case in a transition's ORDER, nothing printed by an empty list, and transitions in one minute.

Only what the prompt fixes is asked: error steps are one ``error:`` line, nothing on stdout, exit 1 (the
prompt's words), and a fresh read after each shows nothing changed.  ``show``/``history`` of an ORDER with a
line break are left out: the reference's message repeats the id, line break included (two stderr lines).  ``--items``/``--qty`` given a
non-integer are left out: the reference answers with argparse's usage error (exit 2) where the prompt asks
for ``error:`` and exit 1.
"""
from __future__ import annotations

from typing import Any

from rowkit import db, err

T0 = "2026-03-01T09:00"
EARLY = "2025-01-01T09:00"  # before every impossible TIME below, so only the calendar can refuse them
IMPOSSIBLE = ["2026-02-29T10:00", "2025-02-30T10:00", "2025-13-01T10:00", "2026-04-31T10:00", "2026-03-02T24:00",
              "2026-03-02T10:60", "2026-00-10T10:00", "2026-03-00T10:00"]
BAD_FORM = ["2026-03-02 10:00", "2026-3-02T10:00", "2026-03-02T10:00:00"]
#: (command, the commands that bring a fresh order to a state the command may leave)
READY = {"pay": [], "ship": ["pay"], "deliver": ["pay", "ship"], "cancel": [], "refund": ["pay", "ship", "deliver"]}


def _row(rid: str, req: list[str], edges: list[str], *steps: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"edge-{rid}", "req": req, "edges": edges, "steps": list(steps)}


def _ready(order: str, command: str, start: str = T0) -> list[dict[str, Any]]:
    """Create ``order`` and walk it to a state ``command`` may leave (one minute apart from ``start``)."""
    steps = [db("create", order, "--at", start)]
    for n, cmd in enumerate(READY[command], 1):
        steps.append(db(cmd, order, "--at", f"{start[:-2]}{n:02d}"))
    return steps


def example() -> list[dict[str, Any]]:
    return [
        _row("example-time-history", ["F-TIME-FORMAT", "F-TRANSITION-OUT", "F-HISTORY", "F-SHOW"], ["example"],
             db("create", "A1", "--at", "2026-03-01T09:30", stdout="A1 created\n"),
             db("pay", "A1", "--at", "2026-03-01T10:00", stdout="A1 paid\n"),
             db("show", "A1", stdout="A1 paid\n"),
             db("history", "A1", stdout="2026-03-01T09:30 create created\n2026-03-01T10:00 pay paid\n")),
        _row("example-list-order", ["F-LIST", "F-ID-CASE"], ["example"],
             *(db("create", o, "--at", T0) for o in ("a1", "A9", "B1", "A10", "A1")),
             db("list", stdout="A1 created\nA10 created\nA9 created\nB1 created\na1 created\n"),
             db("show", "a1", stdout="a1 created\n")),
        *(_row(f"example-leap-{cmd}", ["F-TIME-FORMAT", "F-NOCHANGE"], ["example", "calendar"],
               *_ready("A1", cmd, "2026-02-01T09:00"), err(cmd, "A1", "--at", "2026-02-29T10:00"), db("history", "A1"))
          for cmd in READY),
        _row("example-leap-create", ["F-TIME-FORMAT", "F-NOCHANGE"], ["example", "calendar"],
             err("create", "A1", "--at", "2026-02-29T10:00"), db("list", stdout="")),
    ]


def calendar() -> list[dict[str, Any]]:
    rows = [_row("calendar-create", ["F-TIME-FORMAT", "F-NOCHANGE"], ["calendar", "error_reach"],
                 *(err("create", f"C{n}", "--at", t) for n, t in enumerate(IMPOSSIBLE)), db("list", stdout=""))]
    for cmd in READY:
        rows.append(_row(f"calendar-{cmd}", ["F-TIME-FORMAT", "F-NOCHANGE"], ["calendar", "error_reach"],
                         *_ready("A1", cmd, EARLY),
                         *(st for t in IMPOSSIBLE for st in (err(cmd, "A1", "--at", t), db("show", "A1"))),
                         db("history", "A1")))
    rows += [
        _row("calendar-leap-day-and-year-end", ["F-TIME-FORMAT", "F-TIME-ORDER"], ["calendar"],
             db("create", "L1", "--at", "2028-02-28T23:59", stdout="L1 created\n"),
             db("pay", "L1", "--at", "2028-02-29T00:00", stdout="L1 paid\n"),
             db("ship", "L1", "--at", "2028-12-31T23:59", stdout="L1 shipped\n"),
             db("deliver", "L1", "--at", "2029-01-01T00:00", stdout="L1 delivered\n"),
             err("refund", "L1", "--at", "2028-12-31T23:59"),
             db("refund", "L1", "--at", "2029-01-01T00:00", stdout="L1 refunded\n"),
             db("history", "L1")),
        _row("calendar-month-ends", ["F-TIME-FORMAT", "F-CANCEL"], ["calendar"],
             db("create", "M1", "--at", "2026-04-30T23:59", stdout="M1 created\n"),
             err("pay", "M1", "--at", "2026-04-31T00:00"),
             db("pay", "M1", "--at", "2026-05-01T00:00", stdout="M1 paid\n"),
             db("cancel", "M1", "--at", "2026-05-31T23:59", stdout="M1 cancelled\n"),
             db("history", "M1")),
    ]
    return rows


def error_reach() -> list[dict[str, Any]]:
    rows = [_row(f"reach-time-form-{cmd}", ["F-TIME-FORMAT", "F-NOCHANGE", "F-NO-TRACEBACK"], ["error_reach"],
                 *_ready("A1", cmd), *(err(cmd, "A1", "--at", t) for t in BAD_FORM), db("history", "A1"))
            for cmd in READY]
    rows.append(_row("reach-unknown-order", ["F-ID", "F-UNKNOWN", "F-NO-TRACEBACK"], ["error_reach"],
                     db("create", "A1", "--at", T0),
                     *(err(cmd, "B1", "--at", "2026-03-01T10:00") for cmd in READY),
                     err("show", "B1"), err("history", "B1"), db("list", stdout="A1 created\n")))
    rows.append(_row("reach-bad-order", ["F-ID", "F-NO-TRACEBACK"], ["error_reach"],
                     *(err(cmd, bad, "--at", "2026-03-01T10:00") for cmd in ("create", *READY) for bad in ("A 1", "A.1")),
                     err("show", "A.1"), err("history", "A.1"), db("list", stdout="")))
    return rows


def id_forms() -> list[dict[str, Any]]:
    """Unicode digits (ORDER is ASCII digits), a trailing line break (an ORDER is exactly its characters)."""
    digits = ["A\u0663", "\uff11", "A\u00b2", "\u0661\u0662"]  # Arabic-Indic 3, fullwidth 1, superscript 2
    return [
        _row("id-unicode-digits", ["F-ID"], ["error_reach"],
             *(err("create", o, "--at", T0) for o in digits), db("list", stdout="")),
        _row("id-unicode-digits-transitions", ["F-ID", "F-UNKNOWN"], ["error_reach"],
             db("create", "A3", "--at", T0),
             *(err(cmd, "A\u0663", "--at", "2026-03-01T10:00") for cmd in READY), db("history", "A3")),
        _row("id-trailing-newline", ["F-ID"], ["line_end"],
             err("create", "A1\n", "--at", T0), err("create", "A1\r\n", "--at", T0), db("list", stdout="")),
        _row("id-trailing-newline-lookup", ["F-ID", "F-UNKNOWN"], ["line_end"],
             db("create", "A1", "--at", T0),
             err("pay", "A1\n", "--at", "2026-03-01T10:00"), err("cancel", "A1\n", "--at", "2026-03-01T10:00"),
             db("history", "A1")),
    ]


def case_empty_ties() -> list[dict[str, Any]]:
    return [
        _row("order-case-lookup", ["F-ID-CASE"], ["case"],
             db("create", "Ab", "--at", T0),
             err("pay", "AB", "--at", T0), err("pay", "ab", "--at", T0), err("show", "ab"), err("history", "AB"),
             db("list", stdout="Ab created\n")),
        _row("list-empty-bytes", ["F-LIST", "F-LIST-STATE"], ["empty_output"],
             db("list", stdout=""), db("list", "--state", "paid", stdout=""),
             db("create", "A1", "--at", T0),
             *(db("list", "--state", s, stdout="") for s in ("paid", "shipped", "delivered", "cancelled", "refunded")),
             db("list", stdout="A1 created\n")),
        _row("history-same-minute", ["F-HISTORY", "F-TIME-ORDER"], ["ties"],
             db("create", "A1", "--at", T0),
             *(db(cmd, "A1", "--at", T0) for cmd in ("pay", "ship", "deliver", "refund")),
             db("history", "A1", stdout="".join(f"{T0} {c} {s}\n" for c, s in (
                 ("create", "created"), ("pay", "paid"), ("ship", "shipped"), ("deliver", "delivered"),
                 ("refund", "refunded"))))),
        _row("history-same-minute-cancel", ["F-HISTORY", "F-TIME-ORDER"], ["ties"],
             db("create", "A1", "--at", T0), db("pay", "A1", "--at", T0), db("cancel", "A1", "--at", T0),
             db("history", "A1", stdout=f"{T0} create created\n{T0} pay paid\n{T0} cancel cancelled\n")),
    ]


def hard() -> list[dict[str, Any]]:
    """An impossible TIME on ship --qty and create --items, a missing or bad ORDER on undo and show --json."""
    return [
        _row("calendar-hard", ["F-TIME-FORMAT", "F-PARTIAL", "F-UNDO"], ["calendar", "error_reach"],
             *(err("create", "A1", "--at", t, "--items", "3") for t in IMPOSSIBLE[:4]),
             db("create", "A1", "--at", T0, "--items", "3"), db("pay", "A1", "--at", T0),
             *(err("ship", "A1", "--at", t, "--qty", "1") for t in IMPOSSIBLE),
             db("ship", "A1", "--at", "2028-02-29T10:00", "--qty", "1", stdout="A1 partial\n"),
             err("ship", "A1", "--at", "2028-02-28T10:00", "--qty", "1"),
             db("undo", "A1", stdout="A1 paid\n"),
             db("ship", "A1", "--at", "2026-03-01T09:00", "--qty", "2", stdout="A1 partial\n"),
             db("show", "A1", "--json", out="json", stdout={"order": "A1", "state": "partial", "items": 3,
                                                               "shipped": 2})),
        _row("reach-undo", ["F-ID", "F-UNDO", "F-UNDO-CREATE", "F-SHOW-JSON"], ["error_reach"],
             db("create", "A1", "--at", T0),
             err("undo", "B1"), err("undo", "a1"), err("undo", "A.1"), err("show", "B1", "--json"),
             err("undo", "A1"), db("history", "A1", stdout=f"{T0} create created\n")),
    ]


ROWS: dict[str, list[dict[str, Any]]] = {
    "orderfsm": [*example(), *calendar(), *error_reach(), *id_forms(), *case_empty_ties()],
    "orderfsm-hard": hard(),
}
