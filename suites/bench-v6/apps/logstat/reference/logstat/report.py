"""The exact text, and the JSON, each command prints."""
from __future__ import annotations

import json
from typing import Any

from logstat import stats
from logstat.filters import Log


def summary(log: Log) -> tuple[str, Any]:
    mean = stats.mean_ms(log.requests)
    size = stats.total_bytes(log.requests)
    text = (f"requests: {len(log.requests)}\nmalformed: {log.malformed}\nbytes: {size}\n"
            f"mean_ms: {'-' if mean is None else f'{mean:.2f}'}\n")
    return text, {"requests": len(log.requests), "malformed": log.malformed, "bytes": size,
                  "mean_ms": None if mean is None else float(mean)}


def status(log: Log) -> tuple[str, Any]:
    rows = stats.by_status(log.requests)
    return "".join(f"{code} {n}\n" for code, n in rows), [{"status": code, "count": n} for code, n in rows]


def top(log: Log, n: int) -> tuple[str, Any]:
    rows = stats.top_paths(log.requests, n)
    return "".join(f"{c} {p}\n" for p, c in rows), [{"path": p, "count": c} for p, c in rows]


def latency(log: Log, wanted: list[str]) -> tuple[str, Any]:
    rows = stats.percentiles(log.requests, wanted)
    if not rows:
        return "no requests\n", {}
    return "".join(f"{k}: {v}\n" for k, v in rows), dict(rows)


def rate(log: Log) -> tuple[str, Any]:
    rows = [(m.strftime("%Y-%m-%d %H:%M"), c) for m, c in stats.per_minute(log.requests)]
    return "".join(f"{m} {c}\n" for m, c in rows), [{"minute": m, "count": c} for m, c in rows]


def render(result: tuple[str, Any], as_json: bool) -> str:
    text, data = result
    return json.dumps(data, ensure_ascii=False) + "\n" if as_json else text
