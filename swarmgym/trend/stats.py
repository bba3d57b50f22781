"""Statistics for benchmark comparisons (docs/architecture.md section 8).

The spec is the independent unit; reps sit inside specs.  Everything here is a pure function of
counts or outcome lists, so the report code stays a thin layer over it.

- :func:`wilson` — Wilson 95 % score interval of a pass rate.
- :func:`sign_test` — exact two-sided sign test over per-spec differences (ties dropped).
- :func:`mcnemar` — exact McNemar over paired (spec, rep) outcomes: binomial test on the
  discordant pairs ``b`` (A pass, B fail) and ``c`` (A fail, B pass).
- :func:`mean_se` — mean of per-spec differences and its standard error over specs.
- :func:`pass_at_k` — the unbiased estimator ``1 - C(n-c, k) / C(n, k)`` (needs n >= k).
- :func:`fisher` — Fisher's exact two-sided test of two pass rates (unpaired runs).
- :func:`bh` — Benjamini–Hochberg adjusted p-values (q-values) of a family of tests.
- :func:`newcombe` — 95 % interval of a difference of two independent rates (Newcombe's hybrid score).
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

# The interval and the tests every report draws are computed here in pure Python (exactly as SciPy computes them):
# importing scipy.stats costs a CLI call a second or more, and every bench, report and status page draws them.
# SciPy stays where a statistic needs it (the sequential plans of compare and tune), imported where it is used.


def wilson(passes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``passes`` out of ``n``; (nan, nan) when n == 0.

    Newcombe's (1998) form, as ``scipy.stats.binomtest(...).proportion_ci(method="wilson")`` computes it
    (``tests/trend/test_stats.py`` holds it to SciPy's)."""
    if n <= 0:
        return (math.nan, math.nan)
    if not 0 <= passes <= n:
        raise ValueError(f"passes must be within 0..{n}, got {passes}")
    z = statistics.NormalDist().inv_cdf(0.5 + 0.5 * confidence)
    p = passes / n
    denom = 2 * (n + z ** 2)
    center = (2 * n * p + z ** 2) / denom
    delta = z / denom * math.sqrt(4 * n * p * (1 - p) + z ** 2)
    return (0.0 if passes == 0 else center - delta, 1.0 if passes == n else center + delta)


def binom_half_p(k: int, n: int) -> float:
    """Exact two-sided p-value of ``k`` successes in ``n`` fair trials (``scipy.stats.binomtest(k, n, 0.5)``):
    twice the tail at or beyond ``k``, capped at 1; 1.0 when n == 0."""
    if not 0 <= k <= n:
        raise ValueError(f"k must be within 0..{n}, got {k}")
    if n == 0 or 2 * k == n:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(k, n - k) + 1))
    return min(1.0, 2 * tail / 2 ** n)


@dataclass(frozen=True)
class SignTest:
    positive: int   # specs whose difference is > 0 (the second arm better, as every report takes B − A)
    negative: int   # specs whose difference is < 0
    ties: int
    p: float        # two-sided; 1.0 when every spec tied


def sign_test(diffs: Sequence[float]) -> SignTest:
    pos = sum(1 for d in diffs if d > 0)
    neg = sum(1 for d in diffs if d < 0)
    ties = len(diffs) - pos - neg
    p = binom_half_p(pos, pos + neg)
    return SignTest(pos, neg, ties, p)


@dataclass(frozen=True)
class McNemar:
    b: int          # A passed, B failed
    c: int          # A failed, B passed
    pairs: int      # all paired outcomes (concordant + discordant)
    p: float        # exact two-sided; 1.0 without discordant pairs


def mcnemar_counts(b: int, c: int, pairs: int | None = None) -> McNemar:
    p = binom_half_p(b, b + c)
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


def fisher(passes_a: int, runs_a: int, passes_b: int, runs_b: int) -> float:
    """Fisher's exact two-sided p-value for ``passes_a/runs_a`` vs ``passes_b/runs_b`` (independent runs);
    1.0 when either side has no runs.

    The hypergeometric sum over every table with the same margins that is no more likely than the one
    observed (relative tolerance 1e-7, as ``scipy.stats.fisher_exact`` does it); computed here with log
    factorials because change detection runs it for every spec of every campaign (scipy's is ~100x slower
    per call).  ``tests/trend/test_change.py`` checks it against scipy on many tables."""
    if runs_a <= 0 or runs_b <= 0:
        return 1.0
    for x, n in ((passes_a, runs_a), (passes_b, runs_b)):
        if not 0 <= x <= n:
            raise ValueError(f"passes must be within 0..{n}, got {x}")
    total, passes = runs_a + runs_b, passes_a + passes_b
    lo, hi = max(0, passes - runs_b), min(passes, runs_a)
    if lo == hi:
        return 1.0
    base = _lcomb(total, passes)

    def logp(k: int) -> float:
        return _lcomb(runs_a, k) + _lcomb(runs_b, passes - k) - base

    cut = logp(passes_a) + math.log1p(1e-7)
    p = sum(math.exp(v) for v in (logp(k) for k in range(lo, hi + 1)) if v <= cut)
    return min(1.0, p)


def _lcomb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def bh(pvalues: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values: test i is a discovery at FDR level q when ``bh(p)[i] <= q``.

    ``q_(i) = min_{j >= i} p_(j) * m / j`` over the sorted p-values, capped at 1; the input order is kept."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [1.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, pvalues[i] * m / rank)
        out[i] = min(1.0, running)
    return out


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """95 % interval of ``k1/n1 − k2/n2`` (independent runs): Newcombe's hybrid score method from the two Wilson
    intervals; (nan, nan) when either side has no runs."""
    if n1 <= 0 or n2 <= 0:
        return (math.nan, math.nan)
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    return d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
