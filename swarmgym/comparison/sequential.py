"""Anytime-valid sequential test for two arms on paired binary outcomes (docs/compare.md).

A pair is the same spec and seed run once per arm; its outcome is ``D = B - A`` in {-1, 0, +1}
(+1: only B built a functional app).  Two statistics are updated after every round:

- **the e-value** — a beta-binomial mixture likelihood ratio over the *discordant* pairs.  Under
  H0 (per spec, both arms pass equally often) the sign of each discordant pair is Bernoulli(1/2)
  given that it is discordant, so ``E = 2^(b+c) B(a+c, a+b) / B(a, a)`` is a test martingale and
  by Ville's inequality ``P(sup E >= 1/alpha) <= alpha`` however often it is looked at.
- **a confidence sequence** for the effect ``delta = E[D]`` (B's pass rate minus A's): the
  hedged betting CS of Waudby-Smith & Ramdas (2023) on ``X = (D + 1) / 2`` over a grid, running
  intersection.  It covers ``delta`` at all times with probability >= 1 - alpha; when it lies
  inside ``(-min_effect, +min_effect)`` the arms are declared equivalent (futility).

Every function takes arrays of shape ``(experiments, pairs)`` so ``compare`` (one experiment)
and ``benchmarks/sequential.py`` (thousands) run the very same code.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# scipy is imported where it is used: the CLI loads this module at start (compare's options), and
# importing scipy.stats/optimize costs ~1.5 s of every `swarmgym` command's start-up.

DECISIONS = ("B", "A", "no difference", "undecided")
CONTINUE = "continue"
GRID = 801          # candidate means of X in (0, 1): effect resolution 0.0025
BET_CAP = 0.75      # fraction of the largest safe bet (WSR's c)


def min_discordant(alpha: float) -> int:
    """Fewest discordant pairs any two-sided level-alpha sign test needs: 2^(1-n) <= alpha."""
    return max(1, math.ceil(1 - math.log2(alpha) - 1e-12))


def prior_a(alpha: float) -> float:
    """The Beta(a, a) mixing prior: the flattest one that can still decide at
    :func:`min_discordant` one-sided pairs (as soon as the fixed-sample exact test could)."""
    n = min_discordant(alpha)
    target = math.log(1 / alpha)

    def f(a: float) -> float:
        return float(log_evalue(0, n, a)) - target

    from scipy.optimize import brentq

    lo, hi = 1e-6, 1e3
    if f(lo) <= 0:
        return lo
    return float(brentq(f, lo, hi))


def log_evalue(b, c, a: float):
    """log of the mixture e-value after ``b`` pairs won by A and ``c`` won by B (arrays ok)."""
    from scipy.special import betaln

    b = np.asarray(b, dtype=float)
    c = np.asarray(c, dtype=float)
    return betaln(a + c, a + b) - betaln(a, a) + (b + c) * math.log(2)


class BettingCS:
    """Hedged betting confidence sequence for ``E[D]``, one row per experiment, over a grid of
    candidate means of ``X = (D + 1) / 2``; rows can be dropped as experiments stop."""

    def __init__(self, n_exp: int, alpha: float, grid: int = GRID) -> None:
        self.alpha, self.step = alpha, 1.0 / grid
        self.m = np.linspace(self.step / 2, 1 - self.step / 2, grid)[None, :]
        self.cap_up, self.cap_down = BET_CAP / self.m, BET_CAP / (1 - self.m)
        self.log_up = np.zeros((n_exp, grid))
        self.log_down = np.zeros((n_exp, grid))
        self.alive = np.ones((n_exp, grid), dtype=bool)
        self.total = np.full(n_exp, 0.5)
        self.sq = np.full(n_exp, 0.25)
        self.i = 0
        self.bound = math.log(1 / alpha) + math.log(2)  # (K_up + K_down) / 2 < 1 / alpha

    def update(self, d: np.ndarray) -> None:
        x = (np.asarray(d, dtype=float) + 1.0) / 2.0
        self.i += 1
        mean, var = self.total / self.i, self.sq / self.i
        lam = np.sqrt(2 * math.log(2 / self.alpha) / (var * self.i * math.log(self.i + 1)))[:, None]
        dev = x[:, None] - self.m
        self.log_up += np.log1p(np.minimum(lam, self.cap_up) * dev)
        self.log_down += np.log1p(-np.minimum(lam, self.cap_down) * dev)
        self.alive &= np.logaddexp(self.log_up, self.log_down) < self.bound
        self.total += x
        self.sq += (x - mean) ** 2

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Outer bounds (the nearest rejected grid point), so a coarse grid only widens them."""
        if self.i == 0:
            ones = np.ones(len(self.total))
            return -ones, ones
        grid = self.alive.shape[1]
        any_alive = self.alive.any(axis=1)
        first = self.m[0, self.alive.argmax(axis=1)] - self.step
        last = self.m[0, grid - 1 - self.alive[:, ::-1].argmax(axis=1)] + self.step
        return (np.where(any_alive, np.maximum(2 * first - 1, -1.0), np.nan),
                np.where(any_alive, np.minimum(2 * last - 1, 1.0), np.nan))

    def keep(self, rows: np.ndarray) -> None:
        for name in ("log_up", "log_down", "alive", "total", "sq"):
            setattr(self, name, getattr(self, name)[rows])


def confidence_sequence(d: np.ndarray, alpha: float, grid: int = GRID) -> tuple[np.ndarray, np.ndarray]:
    """Running-intersection CS for ``E[D]`` after each pair; ``d`` is (experiments, pairs)."""
    d = np.atleast_2d(np.asarray(d, dtype=float))
    cs = BettingCS(d.shape[0], alpha, grid)
    lo, hi = np.empty(d.shape), np.empty(d.shape)
    for t in range(d.shape[1]):
        cs.update(d[:, t])
        lo[:, t], hi[:, t] = cs.bounds()
    return lo, hi


@dataclass(frozen=True)
class Step:
    """The test's state after one round."""

    round: int
    pairs: int
    a_wins: int          # discordant pairs where only A passed
    b_wins: int          # discordant pairs where only B passed
    log_e: float         # log e-value now
    max_log_e: float     # running maximum (what the decision and the p-value use)
    p_value: float       # anytime-valid: min(1, 1 / max e)
    effect: float        # (b_wins - a_wins) / pairs: B's pass rate minus A's
    lo: float
    hi: float
    decision: str        # B | A | no difference | undecided | continue


def decide(max_log_e: float, b_wins: int, a_wins: int, lo: float, hi: float, *, alpha: float,
           min_effect: float, budget_spent: bool) -> str:
    if max_log_e >= math.log(1 / alpha) and a_wins != b_wins:
        return "B" if b_wins > a_wins else "A"
    if not (math.isnan(lo) or math.isnan(hi)) and -min_effect < lo and hi < min_effect:
        return "no difference"
    return "undecided" if budget_spent else CONTINUE


def path(d: list[int], ends: list[int], *, alpha: float, min_effect: float, budget_spent: bool = False,
         stop: bool = True) -> list[Step]:
    """The test after each round: ``d`` are the pair outcomes so far, ``ends[k]`` the number of
    pairs at the end of round k+1.  The last step says ``undecided`` when the budget is spent.
    With ``stop`` the path ends at the first decision."""
    a = prior_a(alpha)
    arr = np.asarray(d, dtype=float)[None, :]
    lo_all, hi_all = confidence_sequence(arr, alpha) if len(d) else (np.empty((1, 0)), np.empty((1, 0)))
    steps: list[Step] = []
    best = 0.0
    for k, end in enumerate(ends):
        seen = arr[0, :end]
        b_wins, a_wins = int((seen > 0).sum()), int((seen < 0).sum())
        le = round(float(log_evalue(a_wins, b_wins, a)), 12) + 0.0  # no -0.000 from rounding
        best = max(best, le)
        lo, hi = (float(lo_all[0, end - 1]), float(hi_all[0, end - 1])) if end else (-1.0, 1.0)
        last = k == len(ends) - 1
        dec = decide(best, b_wins, a_wins, lo, hi, alpha=alpha, min_effect=min_effect,
                     budget_spent=budget_spent and last)
        steps.append(Step(k + 1, end, a_wins, b_wins, le, best, min(1.0, math.exp(-best)),
                          (b_wins - a_wins) / end if end else 0.0, lo, hi, dec))
        if stop and dec != CONTINUE:
            break
    return steps


@dataclass
class Simulated:
    decision: np.ndarray    # per experiment: index into DECISIONS
    pairs: np.ndarray       # pairs run before stopping


def simulate(d: np.ndarray, round_size: int, *, alpha: float, min_effect: float,
             futility: bool = True, grid: int = GRID) -> Simulated:
    """Run the whole procedure on pre-drawn outcomes ``d`` (experiments, max pairs); the budget is
    ``d.shape[1]`` pairs, checked at every round end."""
    n_exp, n = d.shape
    rounds = n // round_size
    ends = np.arange(1, rounds + 1) * round_size - 1
    a = prior_a(alpha)
    b_wins = np.cumsum(d > 0, axis=1)[:, ends]
    a_wins = np.cumsum(d < 0, axis=1)[:, ends]
    best = np.maximum.accumulate(np.maximum(log_evalue(a_wins, b_wins, a), 0.0), axis=1)
    reject = (best >= math.log(1 / alpha)) & (a_wins != b_wins)
    decision = np.full(n_exp, 3)
    at = np.full(n_exp, rounds - 1)
    active = np.arange(n_exp)
    cs = BettingCS(n_exp, alpha, grid) if futility else None
    for r in range(rounds):
        if cs is not None:
            for t in range(r * round_size, (r + 1) * round_size):
                cs.update(d[active, t])
            lo, hi = cs.bounds()
            equal = (lo > -min_effect) & (hi < min_effect)
        else:
            equal = np.zeros(len(active), dtype=bool)
        rej = reject[active, r]
        stop = rej | equal
        hit = active[stop]
        decision[hit] = np.where(rej[stop], np.where(b_wins[hit, r] > a_wins[hit, r], 0, 1), 2)
        at[hit] = r
        active = active[~stop]
        if cs is not None:
            cs.keep(~stop)
        if not len(active):
            break
    return Simulated(decision, (at + 1) * round_size)


def mcnemar_critical(m: np.ndarray, alpha: float) -> np.ndarray:
    """Largest k with exact two-sided McNemar p = 2 P(Bin(m, 1/2) <= k) <= alpha (-1: none)."""
    from scipy.stats import binom

    m = np.asarray(m)
    k = binom.ppf(alpha / 2, m, 0.5)
    k = np.where(binom.cdf(k, m, 0.5) <= alpha / 2, k, k - 1)
    return np.where(m > 0, k, -1).astype(int)


def fixed_power(pairs: int, psi: float, delta: float, alpha: float) -> float:
    """Power of the exact McNemar test with ``pairs`` pairs, discordance ``psi``, effect ``delta``."""
    from scipy.stats import binom

    m = np.arange(pairs + 1)
    k = mcnemar_critical(m, alpha)
    theta = min(1.0, max(0.0, (psi + delta) / (2 * psi))) if psi > 0 else 0.5
    rej = np.where(k >= 0, binom.cdf(k, m, theta) + binom.sf(m - k - 1, m, theta), 0.0)
    return float((binom.pmf(m, pairs, psi) * rej).sum())


def fixed_pairs(psi: float, delta: float, alpha: float, power: float = 0.8, limit: int = 5000) -> int | None:
    """Fewest pairs for the exact McNemar test to reach ``power`` (None past ``limit``)."""
    if psi <= 0 or abs(delta) > psi:
        return None
    n = 1
    while n <= limit:
        if fixed_power(n, psi, delta, alpha) >= power:
            return n
        n += 1 if n < 200 else max(1, n // 50)
    return None


def draw_pairs(rng: np.random.Generator, psi: float, delta: float, shape: tuple[int, int]) -> np.ndarray:
    """Pair outcomes with discordance ``psi`` and effect ``delta`` (P(+1) - P(-1))."""
    p_up, p_down = (psi + delta) / 2, (psi - delta) / 2
    u = rng.random(shape)
    return np.where(u < p_up, 1, np.where(u < p_up + p_down, -1, 0)).astype(np.int8)
