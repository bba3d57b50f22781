"""bench-v5 shared edge classes for money / splitpay (issue 30): rows appended to its tables.

- ``example``: the AMOUNTs the prompt shows (``12``, ``12.5``, ``0.07``, ``98765432109876.53``) verbatim, on
  every command taking an AMOUNT (``--amount``, ``--exact``, hard: ``payment add``).
- ``unicode_digit`` / ``number_form`` / ``error_reach``: an AMOUNT, PCT or WEIGHT is "written as digits"
  ("anything else is an error"): Arabic-Indic, fullwidth and superscript digits, a sign, an exponent, a
  separator or three decimals are errors on every option taking one (``--amount``, ``--tip``, ``--exact``,
  ``--share``, hard: ``payment add``); an unknown person is an error in every SPLIT kind and as ``TO``.
- ``unicode_space``: "everything else is kept exactly (... spaces inside ...)": a no-break, ideographic or
  doubled space inside a name makes another name; TEXT keeps an em space and a trailing space.
- ``line_end``: a NAME loses surrounding newlines wherever one is given (``--share``/``--exact``'s
  ``NAME=``, hard: ``payment add``'s FROM and TO).
- ``empty_output``: ``person list`` and ``expense list`` print nothing when there are none (hard: ``export``
  prints nothing): not an empty line.
- ``case``: a NAME keeps its case, so ``ann`` and ``bob`` are not the persons ``Ann`` and ``Bob`` (an unknown
  person, wherever a NAME is given).
- ``ties``: settle-up ties go to the earlier name by code point (``Cy`` before ``bob``), not case-folded.

Left open (no row): surrounding Unicode whitespace other than spaces, tabs and newlines (``\\u00a0Ann``:
the prompt lists "spaces, tabs, newlines"); what ``person add`` prints.
"""
from __future__ import annotations

from typing import Any

from rowkit import db, err, quiet


def _people(*names: str) -> list[dict[str, Any]]:
    return [quiet("person", "add", n) for n in names]


def _expense(payer: str, amount: str, *split: str, desc: str = "x", tip: str | None = None) -> list[str]:
    return ["expense", "add", "--payer", payer, "--amount", amount, "--desc", desc,
            *(["--tip", tip] if tip else []), *split]


EMPTY = [db("expense", "list", stdout=""), db("balances", stdout="Ann 0.00\nBob 0.00\n")]
BAD_AMOUNTS = ["١٢", "１２", "1.٥", "²"]  # Arabic-Indic, fullwidth, a mixed decimal, a superscript

ROWS: dict[str, list[dict[str, Any]]] = {
    "splitpay": [
        {"id": "edge-example-amounts", "req": ["S-AMOUNT", "S-EXACT", "S-EXPENSE-LIST"], "edges": ["example"],
         "steps": [*_people("Ann", "Bob"), db(*_expense("Ann", "12", "--equal", "Bob"), stdout="expense 1\n"),
                   db(*_expense("Ann", "12.5", "--equal", "Bob"), stdout="expense 2\n"),
                   db(*_expense("Ann", "0.07", "--equal", "Ann", "--equal", "Bob"), stdout="expense 3\n"),
                   db(*_expense("Bob", "98765432109876.53", "--exact", "Ann=12.5",
                                "--exact", "Bob=98765432109864.03"), stdout="expense 4\n"),
                   db(*_expense("Ann", "12.57", "--exact", "Ann=0.07", "--exact", "Bob=12.5"), stdout="expense 5\n"),
                   db("expense", "list", stdout="1. Ann paid 12.00 for x: Bob 12.00\n"
                      "2. Ann paid 12.50 for x: Bob 12.50\n"
                      "3. Ann paid 0.07 for x: Ann 0.04, Bob 0.03\n"
                      "4. Bob paid 98765432109876.53 for x: Ann 12.50, Bob 98765432109864.03\n"
                      "5. Ann paid 12.57 for x: Ann 0.07, Bob 12.50\n"),
                   db("balances", stdout="Ann 24.53\nBob -24.53\n")]},
        {"id": "edge-unicode-digits", "req": ["S-AMOUNT", "S-TIP", "S-SHARES", "S-EXACT", "S-ERR-NOCHANGE",
                                              "S-NO-TRACEBACK"], "edges": ["unicode_digit", "error_reach"],
         "steps": [*_people("Ann", "Bob"), *(err(*_expense("Ann", a, "--equal", "Bob")) for a in BAD_AMOUNTS),
                   err(*_expense("Ann", "10", "--equal", "Bob", tip="٣")),
                   err(*_expense("Ann", "12", "--exact", "Ann=٣", "--exact", "Bob=٩")),
                   err(*_expense("Ann", "12", "--share", "Ann=٣", "--share", "Bob=1")),
                   err(*_expense("Ann", "12", "--share", "Ann=1", "--share", "Bob=²")),
                   err(*_expense("Ann", "12", "--share", "Ann=1", "--share", "Bob=１")), *EMPTY]},
        {"id": "edge-bad-exact-parts", "req": ["S-AMOUNT", "S-EXACT", "S-ERR-NOCHANGE", "S-NO-TRACEBACK"],
         "edges": ["number_form", "error_reach"],
         "steps": [*_people("Ann", "Bob"), err(*_expense("Ann", "10", "--exact", "Ann=11", "--exact", "Bob=-1")),
                   err(*_expense("Ann", "10", "--exact", "Ann=1e1", "--exact", "Bob=0")),
                   err(*_expense("Ann", "10", "--exact", "Ann=+5", "--exact", "Bob=5")),
                   err(*_expense("Ann", "10", "--exact", "Ann=5,00", "--exact", "Bob=5")),
                   err(*_expense("Ann", "10", "--exact", "Ann=9.999", "--exact", "Bob=0.001")),
                   err(*_expense("Ann", "10", "--exact", "Ann=ten", "--exact", "Bob=0")), *EMPTY]},
        {"id": "edge-unknown-in-every-split", "req": ["S-EXPENSE-REFS", "S-ERR-NOCHANGE"], "edges": ["error_reach"],
         "steps": [*_people("Ann", "Bob"), err(*_expense("Ann", "3", "--share", "Zed=1", "--share", "Bob=2")),
                   err(*_expense("Ann", "3", "--exact", "Zed=1", "--exact", "Bob=2")),
                   err(*_expense("Ann", "3", "--equal", "Zed", "--equal", "Bob")), *EMPTY,
                   db("person", "list", stdout="Ann\nBob\n")]},
        {"id": "edge-inner-unicode-space", "req": ["S-NAME", "S-PERSON-ADD", "S-PERSON-LIST", "S-EXPENSE-LIST"],
         "edges": ["unicode_space"],
         "steps": [*_people("Ann Lee", "Ann  Lee", "Ann\u00a0Lee", "Bo\u3000Li"),
                   db("person", "list", stdout="Ann  Lee\nAnn Lee\nAnn\u00a0Lee\nBo\u3000Li\n"),
                   db(*_expense("Ann\u00a0Lee", "4", "--equal", "Ann  Lee", "--equal", "Bo\u3000Li",
                                desc="a\u2003 b "), stdout="expense 1\n"),
                   db("expense", "list",
                      stdout="1. Ann\u00a0Lee paid 4.00 for a\u2003 b : Ann  Lee 2.00, Bo\u3000Li 2.00\n"),
                   db("balances", stdout="Ann  Lee -2.00\nAnn Lee 0.00\nAnn\u00a0Lee 4.00\nBo\u3000Li -2.00\n")]},
        {"id": "edge-split-name-newline", "req": ["S-NAME", "S-SHARES", "S-EXACT"], "edges": ["line_end"],
         "steps": [*_people("Ann", "Bob\n", "Cy"), db("person", "list", stdout="Ann\nBob\nCy\n"),
                   db(*_expense("Ann", "3", "--share", "Bob\n=2", "--share", "Cy\n=1"), stdout="expense 1\n"),
                   db(*_expense("Cy", "3", "--exact", "Ann\n=1", "--exact", "Bob \n=2"), stdout="expense 2\n"),
                   db("expense", "list", stdout="1. Ann paid 3.00 for x: Bob 2.00, Cy 1.00\n"
                                                "2. Cy paid 3.00 for x: Ann 1.00, Bob 2.00\n")]},
        {"id": "edge-nothing-to-list", "req": ["S-PERSON-LIST", "S-EXPENSE-LIST"], "edges": ["empty_output"],
         "steps": [db("person", "list", stdout=""), db("expense", "list", stdout=""), *_people("Ann", "Bob"),
                   db("expense", "list", stdout="")]},
        {"id": "edge-name-case-kept", "req": ["S-NAME", "S-EXPENSE-REFS", "S-ERR-NOCHANGE"], "edges": ["case"],
         "steps": [*_people("Ann", "Bob"), err(*_expense("ann", "2", "--equal", "Bob")),
                   err(*_expense("Ann", "2", "--equal", "bob")), err(*_expense("Ann", "2", "--share", "BOB=1")),
                   err(*_expense("Ann", "2", "--exact", "bob=2")), *EMPTY]},
        {"id": "edge-settle-ties-code-point", "req": ["S-SETTLE", "S-BALANCES"], "edges": ["ties"],
         "steps": [*_people("bob", "Cy", "Ann", "dee", "Eve"),
                   db(*_expense("Ann", "2", "--exact", "bob=1", "--exact", "Cy=1"), stdout="expense 1\n"),
                   db(*_expense("dee", "1", "--equal", "Ann"), stdout="expense 2\n"),
                   db(*_expense("Eve", "1", "--equal", "Ann"), stdout="expense 3\n"),
                   db("balances", stdout="Ann 0.00\nCy -1.00\nEve 1.00\nbob -1.00\ndee 1.00\n"),
                   db("settle", stdout="Cy pays Eve 1.00\nbob pays dee 1.00\n")]},
    ],
    "splitpay-hard": [
        {"id": "edge-payment-example-amounts", "req": ["S-PAYMENT", "S-AMOUNT"], "edges": ["example"],
         "steps": [*_people("Ann", "Bob"), db("payment", "add", "Bob", "Ann", "12.5", stdout="payment 1\n"),
                   db("payment", "add", "Bob", "Ann", "0.07", stdout="payment 2\n"),
                   db("payment", "add", "Ann", "Bob", "12", stdout="payment 3\n"),
                   db("balances", stdout="Ann -0.57\nBob 0.57\n")]},
        {"id": "edge-payment-bad-forms", "req": ["S-PAYMENT", "S-AMOUNT", "S-ERR-NOCHANGE", "S-NO-TRACEBACK"],
         "edges": ["unicode_digit", "number_form", "error_reach"],
         "steps": [*_people("Ann", "Bob"), *(err("payment", "add", "Bob", "Ann", a)
                                              for a in [*BAD_AMOUNTS, "+1", "1e2", "0.001", "-0"]),
                   err("payment", "add", "Bob", "Zed", "1"), db("balances", stdout="Ann 0.00\nBob 0.00\n")]},
        {"id": "edge-payment-name-case", "req": ["S-PAYMENT", "S-NAME"], "edges": ["case"],
         "steps": [*_people("Ann", "Bob"), err("payment", "add", "bob", "Ann", "1"),
                   err("payment", "add", "Bob", "ANN", "1"),
                   db("balances", stdout="Ann 0.00\nBob 0.00\n")]},
        {"id": "edge-payment-name-newline", "req": ["S-PAYMENT", "S-NAME"], "edges": ["line_end"],
         "steps": [*_people("Ann", "Bob"), db("payment", "add", "Bob\n", "\tAnn\n", "1", stdout="payment 1\n"),
                   db("balances", stdout="Ann -1.00\nBob 1.00\n")]},
        {"id": "edge-export-prints-nothing", "req": ["S-CSV"], "edges": ["empty_output"],
         "steps": [*_people("Ann", "Bob"), db("export", "--csv", "{dir}/out.csv", stdout=""),
                   db(*_expense("Ann", "1", "--equal", "Bob"), stdout="expense 1\n"),
                   db("export", "--csv", "{dir}/out.csv", stdout="",
                      files={"{dir}/out.csv": {"csv": [["kind", "id", "from", "to", "amount"],
                                                       ["expense", "1", "Ann", "Bob", "1.00"]]}})]},
    ],
}
