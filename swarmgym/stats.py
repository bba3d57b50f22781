"""Statistics for benchmark comparisons (docs/architecture.md section 8).

The spec is the independent unit; reps sit inside specs.  Everything here is a pure function of
counts or outcome lists, so the report code stays a thin layer over it.

- :func:`wilson` — Wilson 95 % score interval of a pass rate.
- :func:`sign_test` — exact two-sided sign test over per-spec differences (ties dropped).
- :func:`mcnemar` — exact McNemar over paired (spec, rep) outcomes: binomial test on the
  discordant pairs ``b`` (A pass, B fail) and ``c`` (A fail, B pass).
- :func:`mean_se` — mean of per-spec differences and its standard error over specs.
- :func:`pass_at_k` — the unbiased estimator ``1 - C(n-c, k) / C(n, k)`` (needs n >= k).
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

from scipy.stats import binomtest


def wilson(passes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``passes`` out of ``n``; (nan, nan) when n == 0."""
    if n <= 0:
        return (math.nan, math.nan)
    if not 0 <= passes <= n:
        raise ValueError(f"passes must be within 0..{n}, got {passes}")
    ci = binomtest(passes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return (float(ci.low), float(ci.high))


@dataclass(frozen=True)
class SignTest:
    positive: int   # specs where A > B
    negative: int   # specs where A < B
    ties: int
    p: float        # two-sided; 1.0 when every spec tied


def sign_test(diffs: Sequence[float]) -> SignTest:
    pos = sum(1 for d in diffs if d > 0)
    neg = sum(1 for d in diffs if d < 0)
    ties = len(diffs) - pos - neg
    p = float(binomtest(pos, pos + neg, 0.5).pvalue) if pos + neg else 1.0
    return SignTest(pos, neg, ties, p)


@dataclass(frozen=True)
class McNemar:
    b: int          # A passed, B failed
    c: int          # A failed, B passed
    pairs: int      # all paired outcomes (concordant + discordant)
    p: float        # exact two-sided; 1.0 without discordant pairs


def mcnemar_counts(b: int, c: int, pairs: int | None = None) -> McNemar:
    p = float(binomtest(b, b + c, 0.5).pvalue) if b + c else 1.0
    return McNemar(b, c, b + c if pairs is None else pairs, p)


def mcnemar(pairs: Sequence[tuple[bool, bool]]) -> McNemar:
    """``pairs`` = [(A passed, B passed), ...] for the same (spec, rep)."""
    b = sum(1 for a, bb in pairs if a and not bb)
    c = sum(1 for a, bb in pairs if bb and not a)
    return mcnemar_counts(b, c, len(pairs))


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (sample stdev / sqrt(n)); SE is nan for n < 2."""
    if not values:
        return (math.nan, math.nan)
    mean = statistics.fmean(values)
    if len(values) < 2:
        return (mean, math.nan)
    return (mean, statistics.stdev(values) / math.sqrt(len(values)))


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` samples with ``c`` passes (Chen et al. 2021)."""
    if k <= 0 or n < k:
        raise ValueError(f"pass@{k} needs at least {k} reps, got {n}")
    if not 0 <= c <= n:
        raise ValueError(f"passes must be within 0..{n}, got {c}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default) of already sorted values; q in 0..100."""
    if not sorted_values:
        return math.nan
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


@dataclass(frozen=True)
class WallStats:
    n: int
    median: float
    mean: float
    p90: float
    stdev: float
    min: float
    max: float


def wall_stats(values: Sequence[float]) -> WallStats:
    """Median / mean / p90 / sample stdev / min / max (nan where undefined)."""
    vals = sorted(float(v) for v in values if v is not None)
    if not vals:
        nan = math.nan
        return WallStats(0, nan, nan, nan, nan, nan, nan)
    return WallStats(len(vals), statistics.median(vals), statistics.fmean(vals), percentile(vals, 90),
                     statistics.stdev(vals) if len(vals) > 1 else math.nan, vals[0], vals[-1])
