"""Typed comparison of an ``api`` probe's results, outside the box.

The driver encodes what a call returned as ``{"t": TYPE, "v": …}`` (``none``, ``bool``, ``int``, ``float``
(its repr), ``str``, ``list``, ``tuple``, ``dict`` (key/value pairs), or ``other`` with a repr).  A suite's
``want`` is YAML: scalars match by exact type and value (``1200`` is not ``1200.0`` nor ``True``), a list
matches a list or a tuple element-wise (``unordered``: as a multiset), a mapping matches a dict (order free);
``{$repr: R}`` (and optionally ``$type: MODULE.QUALNAME``) matches any other object by its repr (a date, say).
"""
from __future__ import annotations

import json
from typing import Any

MAX_SHOWN = 120  # characters of a value shown in a detail


def decode(enc: Any, depth: int = 0) -> Any:
    """A readable form of an encoded value (tuples as tuples), for details only."""
    if not isinstance(enc, dict) or depth > 40:
        return "?"
    t, v = enc.get("t"), enc.get("v")
    if t == "none":
        return None
    if t == "float":
        try:
            return float(str(v))
        except (TypeError, ValueError):
            return "?"
    if t in ("bool", "int", "str"):
        return v
    if t in ("list", "tuple") and isinstance(v, list):
        items = [decode(x, depth + 1) for x in v]
        return tuple(items) if t == "tuple" else items
    if t == "dict" and isinstance(v, list):
        try:
            return {_hashable(decode(p[0], depth + 1)): decode(p[1], depth + 1) for p in v}
        except (TypeError, IndexError):
            return "?"
    return _Other(f"<{enc.get('type', '?')} {enc.get('repr', '')}>")


class _Other(str):
    """A value no YAML value is, shown by its type and repr (without quotes)."""

    def __repr__(self) -> str:
        return str(self)


def _hashable(x: Any) -> Any:
    return json.dumps(x, default=str) if isinstance(x, (list, dict)) else x


def same(want: Any, enc: Any, unordered: bool = False) -> bool:
    """Does the encoded result ``enc`` match the suite's ``want``?"""
    if not isinstance(enc, dict):
        return False
    t, v = enc.get("t"), enc.get("v")
    if want is None:
        return t == "none"
    if isinstance(want, bool):
        return t == "bool" and v is want
    if isinstance(want, int):
        return t == "int" and type(v) is int and v == want
    if isinstance(want, float):
        try:
            return t == "float" and float(str(v)) == want
        except (TypeError, ValueError):
            return False
    if isinstance(want, str):
        return t == "str" and v == want
    if isinstance(want, list):
        if t not in ("list", "tuple") or not isinstance(v, list) or len(v) != len(want):
            return False
        if not unordered:
            return all(same(w, g) for w, g in zip(want, v))
        left = list(v)
        for w in want:
            hit = next((i for i, g in enumerate(left) if same(w, g)), None)
            if hit is None:
                return False
            left.pop(hit)
        return True
    if isinstance(want, dict) and "$repr" in want:  # an object no YAML value is: its type and repr
        return t == "other" and enc.get("repr") == want["$repr"] and want.get("$type", enc.get("type")) == enc.get("type")
    if isinstance(want, dict):
        if t != "dict" or not isinstance(v, list) or len(v) != len(want):
            return False
        pairs = [p for p in v if isinstance(p, list) and len(p) == 2]
        return len(pairs) == len(want) and all(
            any(same(k, p[0]) and same(w, p[1]) for p in pairs) for k, w in want.items())
    return False


def shown(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 1] + "…"
