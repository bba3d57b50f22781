"""Cross-cutting edge-class rows for bench-v4 (see gen_v4.py): {table name: rows}."""
from __future__ import annotations

from typing import Any

EDGE_ROWS: dict[str, list[dict[str, Any]]] = {}
