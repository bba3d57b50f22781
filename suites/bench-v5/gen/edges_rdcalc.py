"""rdcalc's rows of the shared edge classes (issue #30), answered by the reference in gen_v5.py.

- ``number_form``: the grammar has no unary plus (``unary := "-" unary | power``), so ``+5``, ``2*+3`` and
  ``(+1)`` are syntax errors; ``1.2.3`` is two numbers in a row.
- ``line_end``: CR and CRLF are whitespace between tokens ("whitespace between tokens is ignored").
- ``case`` (hard): names are identifiers, so ``X`` and ``x`` are two variables, ``X`` is unbound when only ``x``
  is, and ``SQRT``/``Max`` are unknown functions.

Left out (the prompt leaves it open): Unicode digits (``٣``: "numbers: 12, 3.5, .5" does not say ASCII; the
reference takes them) and Unicode whitespace (U+00A0 between tokens: the prompt says "whitespace", the
reference ignores it, an app refusing it is not wrong by the prompt); a trailing newline after the last token
(not "between tokens"); forms like ``1e3``, ``3.`` and ``007`` (NUMBER is given by examples only).  The
prompt's examples (``10-4-3``, ``64/4/2``, ``2^3^2``, ``-2^2``, ``2^-1``, ``7/2``, ``12``, ``3.5``, ``.5``, the
acceptance lines, ``2+``, ``(1``, ``1 2``) are all rows of bench-v3 already.
"""
from __future__ import annotations

from typing import Any

from edges import _step


def _row(rid: str, req: list[str], edges: list[str], *steps: dict[str, Any]) -> dict[str, Any]:
    return {"id": rid, "req": req, "edges": edges, "steps": list(steps)}


def ev(expr: str, *opts: str, stdout: str) -> dict[str, Any]:
    return _step(["eval", expr, *opts], stdout=stdout)


def bad(expr: str, *opts: str) -> dict[str, Any]:
    return _step(["eval", expr, *opts], "any", exit=1, err="error:")


ROWS: dict[str, list[dict[str, Any]]] = {
    "rdcalc": [
        _row("no-unary-plus", ["R-ERR-SYNTAX", "R-UNARY"], ["number_form"],
             bad("+5"), bad("2*+3"), bad("(+1)"), bad("2^+2"), ev("-5", stdout="-5\n")),
        _row("number-twice", ["R-ERR-SYNTAX"], ["number_form"], bad("1.2.3"), bad("2 .5")),
        _row("cr-is-whitespace", ["R-WS"], ["line_end"],
             ev("1\r+\r2", stdout="3\n"), ev("2\r\n*\r\n3", stdout="6\n"), ev("(1 +\r\n2)\r\n^2", stdout="9\n")),
    ],
    "rdcalc-hard": [
        _row("names-keep-case", ["R-VAR", "R-VAR-UNBOUND"], ["case"],
             ev("X-x", "--var", "X=1", "--var", "x=2", stdout="-1\n"), bad("X+1", "--var", "x=3")),
        _row("functions-keep-case", ["R-FN-UNKNOWN"], ["case"],
             bad("SQRT(16)"), bad("Max(1,2)"), ev("sqrt(16)", stdout="4\n")),
    ],
}
