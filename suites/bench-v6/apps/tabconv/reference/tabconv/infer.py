"""Types: one CSV field -> one JSON value, and one JSON value -> one CSV field."""
from __future__ import annotations

import json
import re
from typing import Any

INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)\.[0-9]+")


def field_kind(field: str) -> str:
    """null | boolean | integer | decimal | string, decided in the prompt's order."""
    if field == "":
        return "null"
    if field in ("true", "false"):
        return "boolean"
    if INTEGER.fullmatch(field):
        return "integer"
    if DECIMAL.fullmatch(field):
        return "decimal"
    return "string"


def to_json_value(field: str) -> Any:
    kind = field_kind(field)
    if kind == "null":
        return None
    if kind == "boolean":
        return field == "true"
    if kind == "integer":
        return int(field)
    if kind == "decimal":
        return float(field)
    return field


def to_csv_field(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
