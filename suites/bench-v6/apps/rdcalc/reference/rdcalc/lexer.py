"""Turn an expression string into tokens."""
from __future__ import annotations

import re
from dataclasses import dataclass


class CalcError(Exception):
    """Any error in an expression: bad syntax, unknown name, division by zero."""


@dataclass(frozen=True)
class Token:
    kind: str   # NUM, NAME, OP, END
    text: str
    pos: int


TOKEN_RE = re.compile(r"\s*(?:(\d+\.\d*|\.\d+|\d+)|([A-Za-z_]\w*)|(\S))")
OPERATORS = set("+-*/^(),")


def tokenize(src: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    while pos < len(src):
        m = TOKEN_RE.match(src, pos)
        if not m or m.end() == pos:
            break
        num, name, op = m.groups()
        if num is not None:
            tokens.append(Token("NUM", num, m.start(1)))
        elif name is not None:
            tokens.append(Token("NAME", name, m.start(2)))
        elif op is not None:
            if op not in OPERATORS:
                raise CalcError(f"unexpected character {op!r} at position {m.start(3)}")
            tokens.append(Token("OP", op, m.start(3)))
        pos = m.end()
    tokens.append(Token("END", "", len(src)))
    return tokens
