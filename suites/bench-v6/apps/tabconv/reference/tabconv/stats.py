"""The stats command: per column counts, type, min, max and the exact mean (half up to cents)."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from tabconv.infer import field_kind, to_json_value

TYPE_OF = {"integer": "integer", "decimal": "number", "boolean": "boolean", "string": "string"}


def column_type(fields: list[str]) -> str:
    kinds = {field_kind(f) for f in fields if f != ""}
    if not kinds:
        return "empty"
    if kinds <= {"integer", "decimal"}:
        return "number" if "decimal" in kinds else "integer"
    if len(kinds) == 1:
        return TYPE_OF[kinds.pop()]
    return "mixed"


def summarize_column(name: str, fields: list[str]) -> dict[str, Any]:
    filled = [f for f in fields if f != ""]
    kind = column_type(fields)
    out: dict[str, Any] = {"column": name, "type": kind, "count": len(filled), "nulls": len(fields) - len(filled),
                           "min": None, "max": None, "mean": None}
    if kind in ("integer", "number"):
        exact = sorted(filled, key=Decimal)
        out["min"], out["max"] = to_json_value(exact[0]), to_json_value(exact[-1])
        mean = sum(Decimal(f) for f in filled) / len(filled)
        out["mean"] = float(mean.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
    return out


def summarize(keys: list[str], rows: list[list[str]]) -> list[dict[str, Any]]:
    return [summarize_column(k, [row[i] for row in rows]) for i, k in enumerate(keys)]
