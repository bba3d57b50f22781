"""Golden tables for rdcalc (seed 2026): boundary expressions from the prompt plus seeded random ones.

Review built in: every successful row is re-computed with Python arithmetic (``^`` -> ``**``, which
has the prompt's precedence and associativity) and the printed form re-derived from the prompt's
format rule; a disagreement stops the generator.
"""
from __future__ import annotations

import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import answer, write

SEED = 2026

FIXED = [  # (expr, requirement ids)
    ("2+3*4", ["R-PREC", "R-ACCEPT"]), ("2^3^2", ["R-POW-RIGHT", "R-ACCEPT"]), ("(2+3)*4", ["R-PARENS", "R-ACCEPT"]),
    ("10-4-3", ["R-EXPR-LEFT"]), ("1-2+3", ["R-EXPR-LEFT"]), ("64/4/2", ["R-TERM-LEFT"]), ("8/4*2", ["R-TERM-LEFT"]),
    ("20-6/2", ["R-PREC"]), ("2*3+4*5", ["R-PREC"]), ("2+3^2", ["R-PREC"]), ("2*3^2", ["R-PREC", "R-POW-RIGHT"]),
    ("-2^2", ["R-POW-UNARY", "R-LEADING-MINUS"]), ("-3", ["R-UNARY", "R-LEADING-MINUS"]), ("--3", ["R-UNARY"]),
    ("2*-3", ["R-UNARY"]), ("-(3-5)", ["R-UNARY", "R-PARENS"]), ("2--1", ["R-UNARY"]), ("(-2)^2", ["R-POW-UNARY"]),
    ("2^-1", ["R-POW-NEG-EXP"]), ("2^-2^2", ["R-POW-NEG-EXP", "R-POW-RIGHT"]), ("4^0.5", ["R-POW-RIGHT", "R-NUMBERS"]),
    ("2^2^3", ["R-POW-RIGHT"]), ("(2^3)^2", ["R-POW-RIGHT", "R-PARENS"]),
    ("7/2", ["R-TRUEDIV", "R-FMT-G12"]), ("1/3", ["R-TRUEDIV", "R-FMT-G12"]), ("2/3", ["R-FMT-G12"]),
    ("6/3", ["R-TRUEDIV", "R-FMT-INT"]), ("1.5*4", ["R-FMT-INT", "R-NUMBERS"]), ("0.1+0.2", ["R-FMT-G12"]),
    ("3.5", ["R-NUMBERS", "R-FMT-G12"]), (".5", ["R-NUMBERS"]), (".5+.25", ["R-NUMBERS", "R-FMT-G12"]),
    ("12", ["R-NUMBERS", "R-FMT-INT"]), ("10.0", ["R-FMT-INT", "R-NUMBERS"]), ("0", ["R-FMT-INT"]),
    ("1/8", ["R-FMT-G12"]), ("100000*100000", ["R-FMT-INT"]), ("-7/2", ["R-FMT-G12", "R-UNARY"]),
    ("  1 +  2 ", ["R-WS"]), ("(1+2) * (3+4)", ["R-WS", "R-PARENS"]), ("2^ 3", ["R-WS"]),
    ("((((1))))", ["R-PARENS"]), ("2*(3+(4-1))*5", ["R-PARENS"]),
    ("2+", ["R-ERR-SYNTAX"]), ("(1", ["R-ERR-SYNTAX"]), ("1 2", ["R-ERR-SYNTAX"]), ("1)", ["R-ERR-SYNTAX"]),
    ("*2", ["R-ERR-SYNTAX"]), ("()", ["R-ERR-SYNTAX"]), ("2^", ["R-ERR-SYNTAX"]), ("1..2", ["R-ERR-SYNTAX"]),
    ("2 $ 3", ["R-ERR-CHAR"]), ("2 # 3", ["R-ERR-CHAR"]), ("3 % 2", ["R-ERR-CHAR"]),
    ("1/0", ["R-ERR-DIV0"]), ("5/(2-2)", ["R-ERR-DIV0"]), ("1/0.0", ["R-ERR-DIV0"]),
]

HARD = [  # (argv after eval, requirement ids)
    (["x^2+1", "--var", "x=3"], ["R-VAR", "R-ACCEPT-HARD"]), (["max(2,3)*sqrt(16)"], ["R-FN-MAX", "R-FN-SQRT", "R-ACCEPT-HARD"]),
    (["a*b", "--var", "a=2", "--var", "b=2.5"], ["R-VAR"]), (["x", "--var", "x=-4"], ["R-VAR"]),
    (["-x^2", "--var", "x=3"], ["R-VAR", "R-POW-UNARY"]), (["rate*2", "--var", "rate=0.25"], ["R-VAR"]),
    (["y+1"], ["R-VAR-UNBOUND"]), (["x+y", "--var", "x=1"], ["R-VAR-UNBOUND"]),
    (["sqrt(2)"], ["R-FN-SQRT"]), (["sqrt(0)"], ["R-FN-SQRT"]), (["sqrt(-1)"], ["R-FN-SQRT"]),
    (["abs(-2.5)"], ["R-FN-ABS"]), (["abs(3)"], ["R-FN-ABS"]), (["abs(-2)^2"], ["R-FN-ABS"]),
    (["min(4,2,8)"], ["R-FN-MIN"]), (["min(5)"], ["R-FN-MIN"]), (["min(3, -1)"], ["R-FN-MIN"]),
    (["max(1,7,3,2)"], ["R-FN-MAX"]), (["max(-1,-2)"], ["R-FN-MAX"]), (["max(2,3)+min(2,3)"], ["R-FN-MAX", "R-FN-MIN"]),
    (["sqrt(x)", "--var", "x=16"], ["R-FN-SQRT", "R-VAR"]), (["max(1+1, 2*2)"], ["R-FN-MAX"]),
    (["foo(1)"], ["R-FN-UNKNOWN"]), (["log(10)"], ["R-FN-UNKNOWN"]),
    (["sqrt(1,2)"], ["R-FN-ARGC"]), (["abs()"], ["R-FN-ARGC"]), (["abs(1,2)"], ["R-FN-ARGC"]),
]


def fmt(x: float) -> str:  # the prompt's rule, restated
    return str(int(x)) if x == int(x) else format(x, ".12g")


def random_expr(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.3:
        n = rng.choice([str(rng.randint(0, 9)), str(rng.randint(10, 99)), f"{rng.randint(0, 9)}.{rng.randint(1, 9)}"])
        return ("-" + n) if rng.random() < 0.15 else n
    op = rng.choice("+-*/^")
    a, b = random_expr(rng, depth - 1), random_expr(rng, depth - 1)
    if op == "^":
        b = str(rng.randint(0, 3))
    e = f"{a}{op}{b}"
    return f"({e})" if rng.random() < 0.35 else e


def review(expr: str, stdout: str) -> None:
    py = expr.replace("^", "**")
    try:
        want = eval(py, {"__builtins__": {}})
    except ZeroDivisionError:
        raise AssertionError(f"{expr}: reference printed {stdout!r} for a division by zero") from None
    assert fmt(float(want)) == stdout.strip(), (expr, want, stdout)


def main() -> None:
    rng = random.Random(SEED)
    rows = [{"id": f"fix{i:02d}", "req": req, "steps": [{"argv": ["eval", e]}]} for i, (e, req) in enumerate(FIXED)]
    seen = {e for e, _ in FIXED}
    n = 0
    while n < 40:
        e = random_expr(rng, 3)
        py = e.replace("^", "**")
        try:
            v = eval(py, {"__builtins__": {}})
        except (ZeroDivisionError, OverflowError):
            continue
        if e in seen or isinstance(v, complex) or not math.isfinite(v) or abs(v) > 1e9 or e.startswith("-"):
            continue
        seen.add(e)
        rows.append({"id": f"rnd{n:02d}", "req": ["R-PREC", "R-EXPR-LEFT", "R-TERM-LEFT", "R-POW-RIGHT", "R-FMT-G12"],
                     "steps": [{"argv": ["eval", e]}]})
        n += 1
    table = answer("rdcalc", rows, "error:")
    for row in table:
        st = row["steps"][0]
        if st["exit"] == 0:
            review(st["argv"][1], st["stdout"])
    write("rdcalc", table, SEED)
    hard = [{"id": f"hard{i:02d}", "req": req, "steps": [{"argv": ["eval", *argv]}]} for i, (argv, req) in enumerate(HARD)]
    write("rdcalc-hard", answer("rdcalc", hard, "error:"), SEED)


if __name__ == "__main__":
    main()
