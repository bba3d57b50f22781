"""Recursive-descent parser and evaluator.

Grammar (lowest to highest precedence)::

    expr  := term (("+" | "-") term)*          left-associative
    term  := unary (("*" | "/") unary)*        left-associative
    unary := "-" unary | power
    power := atom ("^" unary)?                 right-associative; -2^2 = -4, 2^-1 = 0.5
    atom  := NUMBER | NAME | NAME "(" expr ("," expr)* ")" | "(" expr ")"
"""
from __future__ import annotations

import math

from rdcalc.lexer import CalcError, Token, tokenize

FUNCTIONS = {
    "sqrt": (1, 1, lambda a: _sqrt(a[0])),
    "abs": (1, 1, lambda a: abs(a[0])),
    "min": (1, None, min),
    "max": (1, None, max),
}


def _sqrt(x: float) -> float:
    if x < 0:
        raise CalcError("sqrt of a negative number")
    return math.sqrt(x)


class Parser:
    def __init__(self, src: str, variables: dict[str, float] | None = None):
        self.tokens = tokenize(src)
        self.i = 0
        self.vars = variables or {}

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def take(self, text: str | None = None) -> Token:
        t = self.tok
        if text is not None and t.text != text:
            found = repr(t.text) if t.kind != "END" else "end of input"
            raise CalcError(f"expected {text!r} at position {t.pos}, found {found}")
        self.i += 1
        return t

    def parse(self) -> float:
        if self.tok.kind == "END":
            raise CalcError("empty expression")
        value = self.expr()
        if self.tok.kind != "END":
            raise CalcError(f"unexpected {self.tok.text!r} at position {self.tok.pos}")
        return value

    def expr(self) -> float:
        value = self.term()
        while self.tok.text in ("+", "-") and self.tok.kind == "OP":
            op = self.take().text
            rhs = self.term()
            value = value + rhs if op == "+" else value - rhs
        return value

    def term(self) -> float:
        value = self.unary()
        while self.tok.text in ("*", "/") and self.tok.kind == "OP":
            op = self.take().text
            rhs = self.unary()
            if op == "*":
                value = value * rhs
            elif rhs == 0:
                raise CalcError("division by zero")
            else:
                value = value / rhs
        return value

    def unary(self) -> float:
        if self.tok.kind == "OP" and self.tok.text == "-":
            self.take()
            return -self.unary()
        return self.power()

    def power(self) -> float:
        base = self.atom()
        if self.tok.kind == "OP" and self.tok.text == "^":
            self.take()
            exponent = self.unary()  # recursion on the right: right-associative
            if abs(exponent) > 4096:
                base = float(base)  # huge integer powers: fail fast with an overflow instead of hanging
            try:
                result = base ** exponent
            except (OverflowError, ZeroDivisionError) as e:
                raise CalcError(f"cannot compute {base}^{exponent}: {e}") from None
            if isinstance(result, complex):
                raise CalcError("result is not a real number")
            return result
        return base

    def atom(self) -> float:
        t = self.tok
        if t.kind == "NUM":
            self.take()
            return float(t.text) if "." in t.text else int(t.text)
        if t.kind == "NAME":
            self.take()
            if self.tok.text == "(":
                return self.call(t)
            if t.text not in self.vars:
                raise CalcError(f"unknown variable {t.text!r}")
            return self.vars[t.text]
        if t.text == "(":
            self.take()
            value = self.expr()
            self.take(")")
            return value
        found = repr(t.text) if t.kind != "END" else "end of input"
        raise CalcError(f"expected a number at position {t.pos}, found {found}")

    def call(self, name: Token) -> float:
        if name.text not in FUNCTIONS:
            raise CalcError(f"unknown function {name.text!r}")
        lo, hi, fn = FUNCTIONS[name.text]
        self.take("(")
        args = [self.expr()]
        while self.tok.text == ",":
            self.take()
            args.append(self.expr())
        self.take(")")
        if len(args) < lo or (hi is not None and len(args) > hi):
            raise CalcError(f"{name.text}() got {len(args)} arguments")
        return fn(args)


def evaluate(src: str, variables: dict[str, float] | None = None) -> float:
    return Parser(src, variables).parse()


def format_number(x: float) -> str:
    if isinstance(x, int) or (math.isfinite(x) and x == int(x) and abs(x) < 1e15):
        return str(int(x))
    return format(x, ".12g")
