"""The per-spec rows of the edge classes every spec shares (suite.yaml's ``edge_classes``: ``example``,
``unicode_digit``, ``unicode_space``, ``case``, ``line_end``, ``empty_output``, ``error_reach``, ``calendar``,
``number_form``, ``ties``, ``largest``), gathered from ``gen/edges_<slug>.py``: each such module defines
``ROWS: {table name: [row, ...]}`` (rows in gen_v5's shape, tagged with their ``edges``), appended to that
table after bench-v3's rows and gen/edges.py's.  Every row is answered by the reference at freeze time.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _gather() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(HERE.glob("edges_*.py")):
        if path.stem == "edges_more":
            continue
        for table, rows in importlib.import_module(path.stem).ROWS.items():
            out.setdefault(table, []).extend(rows)
    return out


MORE_ROWS: dict[str, list[dict[str, Any]]] = _gather()
