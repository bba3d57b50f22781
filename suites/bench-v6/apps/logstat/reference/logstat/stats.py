"""The statistics: counts, top paths, nearest-rank percentiles, per-minute counts, the exact mean."""
from __future__ import annotations

import datetime
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal

from logstat.parser import Request

DEFAULT_PERCENTILES = ("50", "90", "95", "99")


def mean_ms(requests: list[Request]) -> Decimal | None:
    """The mean response time rounded half up to two decimals (exact: decimal arithmetic), or None."""
    if not requests:
        return None
    mean = Decimal(sum(r.ms for r in requests)) / len(requests)
    return mean.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def total_bytes(requests: list[Request]) -> int:
    return sum(r.size for r in requests)


def by_status(requests: list[Request]) -> list[tuple[int, int]]:
    return sorted(Counter(r.status for r in requests).items())


def top_paths(requests: list[Request], n: int) -> list[tuple[str, int]]:
    """The n most requested paths: count descending, then path in code-point order."""
    return sorted(Counter(r.path for r in requests).items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def nearest_rank(sorted_values: list[int], percent: str) -> int:
    """The value at 1-based rank ceil(P * n / 100), computed exactly (P a decimal string)."""
    p = Decimal(percent)
    n = len(sorted_values)
    product = p * n
    rank = int(product // 100) + (product % 100 != 0)
    return sorted_values[max(rank, 1) - 1]


def percentiles(requests: list[Request], wanted: list[str]) -> list[tuple[str, int]]:
    """[("pP", value) for each wanted P] plus ("max", value); [] without requests."""
    if not requests:
        return []
    times = sorted(r.ms for r in requests)
    return [(f"p{p}", nearest_rank(times, p)) for p in wanted] + [("max", times[-1])]


def per_minute(requests: list[Request]) -> list[tuple[datetime.datetime, int]]:
    """Every minute from the earliest to the latest request's, with its count (0 included)."""
    counts = Counter(r.time.replace(second=0) for r in requests)
    if not counts:
        return []
    out, minute, last = [], min(counts), max(counts)
    while minute <= last:
        out.append((minute, counts[minute]))
        minute += datetime.timedelta(minutes=1)
    return out
