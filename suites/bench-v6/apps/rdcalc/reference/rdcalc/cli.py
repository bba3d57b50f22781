"""Command line: python3 -m rdcalc eval EXPR [--var NAME=VALUE ...]"""
from __future__ import annotations

import argparse
import sys

from rdcalc.lexer import CalcError
from rdcalc.parser import evaluate, format_number


def parse_var(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        return name, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"value of {name} is not a number: {value!r}") from None


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rdcalc", description="Recursive-descent calculator: + - * / ^ ( ) and unary minus.")
    sub = p.add_subparsers(dest="cmd", required=True)
    ev = sub.add_parser("eval", help="evaluate an expression and print the result")
    ev.add_argument("expr", help="expression, e.g. '2^3^2' or '(1+2)*3'")
    ev.add_argument("--var", action="append", type=parse_var, default=[], metavar="NAME=VALUE",
                    help="bind a variable (repeatable)")
    return p


def _expr_last(argv: list[str]) -> list[str]:
    """Let EXPR start with '-' ('-2^2'): move options first and put EXPR after '--'."""
    if not argv or argv[0] != "eval" or "--" in argv:
        return argv
    opts, rest, it = [], [], iter(argv[1:])
    for a in it:
        if a in ("-h", "--help") or a.startswith("--var="):
            opts.append(a)
        elif a == "--var":
            opts += [a, next(it, "")]
        else:
            rest.append(a)
    return ["eval", *opts, "--", *rest]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(_expr_last(sys.argv[1:] if argv is None else argv))
    try:
        value = evaluate(args.expr, dict(args.var))
    except CalcError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(format_number(value))
    return 0
