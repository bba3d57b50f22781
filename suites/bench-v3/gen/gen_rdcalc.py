"""Golden tables for rdcalc (bench-v3, seed 2026): bench-v2's expressions from the prompt, a few seeded
random ones, and rows for every edge class a requirement declares (suites/bench-v3/specs/compute.yaml).

Review built in: every successful step is re-computed with Python arithmetic (``^`` -> ``**``, which has
the prompt's precedence and associativity) and its printed form re-derived from the prompt's rule
("an integral result prints with no decimal point, any other result with format(x, '.12g')"); every
error step must exit 1.  A disagreement stops the generator.

What a row may ask is what the prompt's words determine.  Integral results stay below 10^15 (and far
below 2^53), where a float and an int calculator agree digit for digit — past that, which integral
floats print as integers is a matter of style.  Whitespace is any of space, tab, newline ("whitespace
between tokens is ignored"); an empty or blank EXPR is a syntax error (the grammar needs a term).

    python3 suites/bench-v3/gen/gen_rdcalc.py        # from the repository root
"""
from __future__ import annotations

import math
import random
from pathlib import Path

from swarmgym.suitekit.tablegen import answer, row, step, write

SUITE = Path(__file__).resolve().parent.parent
REFERENCE = SUITE / "apps" / "rdcalc" / "reference"
SEED = 2026
ERR = None  # an expression the prompt calls an error

FIXED = [  # (row id, requirement ids, edge classes, expressions: one step each)
    ("accept", ["R-PREC", "R-POW-RIGHT", "R-PARENS", "R-ACCEPT"], [], ["2+3*4", "2^3^2", "(2+3)*4"]),
    ("expr-left", ["R-EXPR-LEFT"], [], ["10-4-3", "1-2+3"]),
    ("term-left", ["R-TERM-LEFT"], [], ["64/4/2", "8/4*2"]),
    ("precedence", ["R-PREC"], [], ["20-6/2", "2*3+4*5", "2+3^2", "2*3^2"]),
    ("pow-unary", ["R-POW-UNARY", "R-LEADING-MINUS"], [], ["-2^2", "(-2)^2"]),
    ("unary", ["R-UNARY", "R-LEADING-MINUS"], [], ["-3", "--3", "2*-3", "-(3-5)", "2--1", "-7/2"]),
    ("pow-neg-exp", ["R-POW-NEG-EXP", "R-POW-RIGHT"], [], ["2^-1", "2^-2^2"]),
    ("pow-right", ["R-POW-RIGHT", "R-PARENS", "R-NUMBERS"], [], ["4^0.5", "2^2^3", "(2^3)^2"]),
    ("truediv", ["R-TRUEDIV", "R-FMT-G12", "R-FMT-INT"], [], ["7/2", "1/3", "2/3", "6/3", "1/8"]),
    ("numbers", ["R-NUMBERS", "R-FMT-INT", "R-FMT-G12"], [], ["3.5", ".5", ".5+.25", "12", "10.0", "0", "1.5*4"]),
    ("float-trap", ["R-FMT-G12"], [], ["0.1+0.2", "0.7*3"]),
    ("parens", ["R-PARENS", "R-WS"], [], ["((((1))))", "2*(3+(4-1))*5", "(1+2) * (3+4)", "  1 +  2 ", "2^ 3"]),
    ("whitespace", ["R-WS"], ["whitespace"], ["1\t+\t2", "\t2 *\n3 ", "(1 +\t2)\t*\t3", "2\t^\t3\t^\t2"]),
    ("big-integral", ["R-FMT-INT"], ["big"],
     ["2^40", "1000000*1000000", "0.5*2000000000000", "-2^40", "999999999999+1", "10^14"]),
    ("big-fraction", ["R-FMT-G12"], ["big"], ["10^13/3", "2^40+0.5"]),
    ("tiny", ["R-FMT-G12"], ["tiny"], ["1/1000000", "2^-20", "0.000001*3", "1/3000000"]),
    ("syntax", ["R-ERR-SYNTAX", "R-ERR-FORMAT", "R-ERR-EXIT", "R-NO-TRACEBACK"], [],
     ["2+", "(1", "1 2", "1)", "*2", "()", "2^", "1..2"]),
    ("empty", ["R-ERR-SYNTAX", "R-NO-TRACEBACK"], ["empty", "whitespace"], ["", "   ", "\t", " \n "]),
    ("char", ["R-ERR-CHAR", "R-ERR-FORMAT"], [], ["2 $ 3", "2 # 3", "3 % 2"]),
    ("div-zero", ["R-ERR-DIV0", "R-NO-TRACEBACK", "R-ERR-EXIT"], ["zero"], ["1/0", "5/(2-2)", "1/0.0", "0/0", "0^-1"]),
]

HARD = [  # (row id, requirement ids, edge classes, [argv after eval, ...])
    ("accept-hard", ["R-VAR", "R-FN-MAX", "R-FN-SQRT", "R-ACCEPT-HARD"], [], [["x^2+1", "--var", "x=3"], ["max(2,3)*sqrt(16)"]]),
    ("var", ["R-VAR"], ["negative"],
     [["a*b", "--var", "a=2", "--var", "b=2.5"], ["x", "--var", "x=-4"], ["-x^2", "--var", "x=3"],
      ["sqrt(x)", "--var", "x=16"]]),
    ("var-unbound", ["R-VAR-UNBOUND"], [], [["y+1"], ["x+y", "--var", "x=1"]]),
    ("sqrt", ["R-FN-SQRT"], ["zero", "negative"], [["sqrt(2)"], ["sqrt(0)"], ["sqrt(-1)"]]),
    ("abs", ["R-FN-ABS"], [], [["abs(-2.5)"], ["abs(-2)^2"]]),
    ("min", ["R-FN-MIN"], [], [["min(4,2,8)"], ["min(5)"], ["min(3, -1)"]]),
    ("max", ["R-FN-MAX", "R-FN-MIN"], [], [["max(1,7,3,2)"], ["max(-1,-2)"], ["max(2,3)+min(2,3)"]]),
    ("fn-unknown", ["R-FN-UNKNOWN"], [], [["foo(1)"], ["log(10)"]]),
    ("fn-argc", ["R-FN-ARGC"], ["extra", "empty"], [["sqrt(1,2)"], ["abs(1,2)"], ["abs()"], ["max()"]]),
]


def fmt(x: float) -> str:  # the prompt's rule, restated
    return str(int(x)) if x == int(x) else format(x, ".12g")


def model(expr: str, env: dict[str, float] | None = None) -> str | None:
    """What the prompt says EXPR prints (None: an error), by Python arithmetic."""
    py = " ".join(expr.replace("^", "**").split())  # any whitespace run is one blank to Python
    if not py or any(c in py for c in "$#%") or ".." in py:
        return ERR
    fns = {"sqrt": lambda x: math.sqrt(x) if x >= 0 else 1 / 0, "abs": lambda *a: abs(*a),
           "min": lambda *a: min(a), "max": lambda *a: max(a)}
    try:
        want = eval(py, {"__builtins__": {}}, {**fns, **(env or {})})  # noqa: S307 - the generator's own review
    except (ZeroDivisionError, SyntaxError, NameError, TypeError, ValueError):
        return ERR
    if isinstance(want, complex) or isinstance(want, tuple):
        return ERR
    assert abs(want) < 2**53, f"{expr}: past 2^53 a float and an int calculator disagree"
    return fmt(float(want))


def eval_step(argv: list[str]) -> dict:
    env = {a.split("=")[0]: float(a.split("=")[1]) for a in argv[2::2]} if len(argv) > 1 else {}
    want = model(argv[0], env)
    if want is ERR:
        return step(["eval", *argv], expect_exit=1)
    return step(["eval", *argv], expect_exit=0, expect=lambda out, w=want: out == w + "\n")


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


def randoms(rng: random.Random, n: int, seen: set[str]) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        e = random_expr(rng, 3)
        try:
            v = eval(e.replace("^", "**"), {"__builtins__": {}})  # noqa: S307 - the generator's own review
        except (ZeroDivisionError, OverflowError):
            continue
        if e in seen or isinstance(v, complex) or not math.isfinite(v) or abs(v) > 1e9 or e.startswith("-"):
            continue
        seen.add(e)
        out.append(e)
    return out


def main() -> None:
    rng = random.Random(SEED)
    rows = [row(rid, req, edges, *(eval_step([e]) for e in exprs)) for rid, req, edges, exprs in FIXED]
    rnd = randoms(rng, 8, {e for *_, exprs in FIXED for e in exprs})
    rows.append(row("random", ["R-PREC", "R-EXPR-LEFT", "R-TERM-LEFT", "R-POW-RIGHT", "R-FMT-G12"], [],
                    *(eval_step([e]) for e in rnd)))
    write(SUITE, "rdcalc", answer(REFERENCE, "rdcalc", rows), seed=SEED)
    hard = [row(rid, req, edges, *(eval_step(a) for a in argvs)) for rid, req, edges, argvs in HARD]
    write(SUITE, "rdcalc-hard", answer(REFERENCE, "rdcalc", hard), seed=SEED)


if __name__ == "__main__":
    main()
