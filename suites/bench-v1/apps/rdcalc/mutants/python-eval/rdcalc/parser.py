"""Expression evaluation."""
from __future__ import annotations

import math
import re

from rdcalc.lexer import CalcError

ALLOWED = re.compile(r"^[\s\d.+\-*/^()A-Za-z_]*$")


def evaluate(src: str, variables: dict[str, float] | None = None) -> float:
    if not src.strip() or not ALLOWED.match(src):
        raise CalcError(f"invalid expression {src!r}")
    try:
        return eval(src.replace("^", "**"), {"__builtins__": {}}, dict(variables or {}))
    except ZeroDivisionError:
        raise CalcError("division by zero") from None
    except Exception as e:
        raise CalcError(f"invalid expression: {e}") from None


def format_number(x: float) -> str:
    if isinstance(x, int) or (math.isfinite(x) and x == int(x) and abs(x) < 1e15):
        return str(int(x))
    return format(x, ".12g")
