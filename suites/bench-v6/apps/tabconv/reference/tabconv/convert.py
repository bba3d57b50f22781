"""Records <-> a list of JSON objects: header, keys, columns, field counts."""
from __future__ import annotations

from typing import Any

from tabconv import TabconvError
from tabconv.infer import to_csv_field, to_json_value


def header_and_rows(records: list[tuple[int, list[str]]], header: bool = True) -> tuple[list[str], list[list[str]]]:
    """The keys and the data records; checks header names and field counts."""
    if not records:
        return [], []
    if header:
        keys, body = records[0][1], records[1:]
        seen: set[str] = set()
        for name in keys:
            if name == "":
                raise TabconvError("line 1: empty header name")
            if name in seen:
                raise TabconvError(f"line 1: header name {name!r} given twice")
            seen.add(name)
    else:
        keys, body = [f"col{i}" for i in range(1, len(records[0][1]) + 1)], records
    for line, fields in body:
        if len(fields) != len(keys):
            raise TabconvError(f"line {line}: {len(fields)} fields, the header has {len(keys)}")
    return list(keys), [fields for _, fields in body]


def to_objects(keys: list[str], rows: list[list[str]]) -> list[dict[str, Any]]:
    return [{k: to_json_value(f) for k, f in zip(keys, row)} for row in rows]


def columns_of(objects: Any) -> list[str]:
    """The first object's keys in order, then keys first seen later, in order of appearance."""
    if not isinstance(objects, list) or not all(isinstance(o, dict) for o in objects):
        raise TabconvError("the JSON input must be an array of objects")
    keys: dict[str, None] = {}
    for obj in objects:
        for k in obj:
            keys.setdefault(k, None)
    return list(keys)


def to_records(objects: list[dict[str, Any]], columns: list[str], names: list[str]) -> list[list[str]]:
    """Header ``names`` then one record per object (values of ``columns``); nothing for no objects."""
    if not objects:
        return []
    return [list(names)] + [[to_csv_field(o.get(c)) for c in columns] for o in objects]
