"""bench-v5 shared edge classes for txn / txkvbench (issue 30): rows appended to its tables.

- ``case``: keys and values are kept as typed: ``Name`` and ``name`` are two keys, ``Ada`` reads back ``Ada``.
- ``empty_output``: ``SET`` and ``DELETE`` print nothing ("no output"): a script of them prints nothing at
  all, not an empty line.
- ``unicode_digit`` (hard): ``²`` is a digit to ``str.isdigit`` but no integer: ``INCR`` by it, or of a
  value holding it, is the "INCR of a non-integer" error.
- ``number_form`` (hard): ``INCR k n`` adds "the integer n": ``1.5`` and ``1e3`` are no integers (an error,
  like bench-v3's ``INCR n x``), and nothing is written.

Left open (no row): ``unicode_space`` — "words separated by spaces" does not say whether a no-break or
ideographic space separates words (the reference's ``str.split()`` splits on them, as on tabs, which
bench-v3 already left open); ``line_end`` (a line break inside a script is the same open question);
``INCR`` by Arabic-Indic or fullwidth digits (``int()`` takes them; the prompt only says "integer");
``ties`` (keys are unique: ``KEYS`` has no ties); lower-case statement names.
"""
from __future__ import annotations

from typing import Any

from rowkit import db, err


def _exec(script: str, stdout: str) -> dict[str, Any]:
    return db("exec", script, stdout=stdout)


ROWS: dict[str, list[dict[str, Any]]] = {
    "txkvbench": [
        {"id": "edge-case-kept", "req": ["T-SET", "T-GET", "T-COUNT"], "edges": ["case"],
         "steps": [_exec("SET Name Ada; SET name bob; GET Name; GET name; COUNT", "Ada\nbob\n2\n"),
                   _exec("GET Name; GET NAME; SET Q MiXeD; GET Q", "Ada\nNULL\nMiXeD\n")]},
        {"id": "edge-no-output", "req": ["T-SET", "T-DELETE", "T-OUTPUT-LINES"], "edges": ["empty_output"],
         "steps": [_exec("SET a 1; SET b 2; DELETE a", ""), _exec("DELETE zz", ""), _exec("GET b; COUNT", "2\n1\n")]},
    ],
    "txkvbench-hard": [
        {"id": "edge-incr-superscript", "req": ["T-INCR", "T-INCR-NONINT", "T-NO-TRACEBACK"],
         "edges": ["unicode_digit"],
         "steps": [err("exec", "INCR n ²", prefix="ERR"), err("exec", "SET s ²; INCR s", prefix="ERR"),
                   _exec("GET s; GET n; INCR m 2", "²\nNULL\n2\n")]},
        {"id": "edge-incr-amount-form", "req": ["T-INCR", "T-INCR-NONINT"], "edges": ["number_form"],
         "steps": [err("exec", "INCR n 1.5", prefix="ERR"), err("exec", "INCR n 1e3", prefix="ERR"),
                   err("exec", "SET n 4; INCR n 2.0", prefix="ERR"), _exec("GET n; KEYS", "4\nn\n")]},
    ],
}
