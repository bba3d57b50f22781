"""A group-sequential exact McNemar test with α spending: decide A vs B in as few paired runs as it takes.

A pair is one spec and seed run once per arm; its outcome is ``D = B − A`` in {−1, 0, +1}.  Under H0 (for
every spec both arms pass equally often) the *sign* of a discordant pair is a fair coin whatever happened
before — the pattern of which pairs disagreed is ancillary — so, given that pattern, the running sum
``S = (B-only) − (A-only)`` over the ``m`` discordant pairs so far is a simple random walk.  The test
looks after every round, at ``t = rounds done / rounds in the budget``:

- **Boundaries** (Lan–DeMets α spending, exact): at look ``k`` the boundary ``b_k`` is the smallest whole
  number with ``P0(|S| reaches its boundary at some look ≤ k) ≤ α · t_k^ρ``, computed exactly on the walk
  given the discordant counts ``m_1 ≤ … ≤ m_k`` seen so far (:class:`Walk`).  So the error rate is at most
  α however the looks fall (a round that lost a pair, a budget spent to the end with ``--until budget``),
  and stopping at the first crossing is free.  What is fixed is the budget: the design spends its α by
  the last round, and a comparison that needs more starts anew (on fresh seeds).
- **The spending shape** ρ: 1.5 (most α late) needs the fewest runs when the arms' runs disagree often and
  both ways (real swarms, independent runs); 0.5 lets 6 one-sided discordant pairs — the fewest any
  level-0.05 test can act on — decide from 39 % of the budget on, which is what paired simulator runs
  give (:func:`rho_for`; ``benchmarks/sequential.py`` measured both).
- **The interval** is the repeated confidence interval of the same family of tests: for every share θ of
  discordant pairs won by B the two one-sided tests at α/2 each; the θ not rejected at any look so far,
  times the disagreement rate ψ (an anytime confidence sequence at α/10), bound the effect
  ``δ = ψ (2θ − 1)``.  At θ = ½ that family *is* the test, so the interval excludes 0 exactly when the test
  has decided, on the same side.
- **The p-value** is the repeated p-value: the smallest α at which this design would have decided by now.
- **Futility** (non-binding, so the error rate above is untouched): from 40 % of the budget on, a comparison
  whose chance to decide by the end of its budget — the conditional power at the effect seen so far — is
  below 10 % stops ``undecided``, with the next step (a budget that can decide).  It spends the runs an
  experiment heading for ``undecided`` would waste: at 80 % power that is what brings the mean runs below
  0.7× the fixed design's (``benchmarks/sequential.py``).

Every simulation function takes arrays of shape ``(experiments, pairs)``, so ``compare``, ``plan`` and
``benchmarks/sequential.py`` run the very same code.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

# --- the distributions, from scipy.special's functions ---------------------------------------------------------
# scipy.stats costs a report a second to import and each of its distribution calls ~1 ms of argument checks; these
# are the same numbers (tests/trend/test_sequential.py holds them to scipy.stats'), imported where they are used, so
# a worker or a CLI call that never computes a bound starts without SciPy.

def binom_cdf(k: np.ndarray | float, n: np.ndarray | float, p: float) -> np.ndarray:
    """``scipy.stats.binom.cdf``: P(Bin(n, p) <= k), 0 below 0."""
    from scipy.special import bdtr
    k = np.floor(np.asarray(k, dtype=float))
    return np.where(k < 0, 0.0, bdtr(np.maximum(k, 0), n, p))


def binom_sf(k: np.ndarray | float, n: np.ndarray | float, p: float) -> np.ndarray:
    """``scipy.stats.binom.sf``: P(Bin(n, p) > k), 1 below 0."""
    from scipy.special import bdtrc
    k = np.floor(np.asarray(k, dtype=float))
    return np.where(k < 0, 1.0, bdtrc(np.maximum(k, 0), n, p))


def binom_pmf(k: np.ndarray, n: int, p: float) -> np.ndarray:
    """``scipy.stats.binom.pmf`` for whole ``0 <= k <= n``."""
    from scipy.special import gammaln, xlog1py, xlogy
    k = np.asarray(k, dtype=float)
    return np.exp(gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1) + xlogy(k, p) + xlog1py(n - k, -p))


def norm_cdf(x: np.ndarray | float) -> np.ndarray:
    from scipy.special import ndtr
    return ndtr(x)


def norm_ppf(q: np.ndarray | float) -> np.ndarray:
    from scipy.special import ndtri
    return ndtri(q)


def norm_pdf(x: np.ndarray, loc: float, scale: float) -> np.ndarray:
    z = (np.asarray(x, dtype=float) - loc) / scale
    return np.exp(-z * z / 2) / (scale * math.sqrt(2 * math.pi))


DECISIONS = ("B", "A", "no difference", "undecided")
CONTINUE = "continue"
RHO_INDEPENDENT = 1.5     # spending exponent when runs disagree often, both ways (real swarms)
RHO_COUPLED = 0.5         # ... when they rarely disagree (paired simulator runs: one-sided discordance)
COUPLED_PSI = 0.3         # at or below this prior disagreement rate the design expects coupled runs
PSI_SHARE = 0.1           # the disagreement rate's confidence sequence runs at this share of alpha
THETA_GRID = 201          # shares of discordant pairs won by B the interval is computed on
FUTILITY_POWER = 0.1     # stop undecided once the chance to decide by the budget's end falls below this ...
FUTILITY_FROM = 0.4      # ... from this share of the budget on (earlier the effect seen so far is too noisy)
TOL = 1e-9
MAX_LOOKS = 40          # the normal-approximation forecast looks at most this often


def spent(alpha: float, t: float, rho: float) -> float:
    """α spent by budget fraction ``t``: ``α · t^ρ``."""
    return alpha * min(1.0, max(0.0, t)) ** rho


def rho_for(psi: float | None) -> float:
    """The spending shape for a prior disagreement rate ``psi`` (None: unknown, taken as independent runs)."""
    return RHO_COUPLED if psi is not None and psi <= COUPLED_PSI else RHO_INDEPENDENT


class Walk:
    """The walk ``S`` of discordant signs, one row per experiment (or per hypothesised θ), not yet absorbed by
    a boundary: exact probabilities on whole-number states, a window that never grows past the boundaries."""

    def __init__(self, theta: np.ndarray, width: int) -> None:
        self.theta = np.asarray(theta, dtype=float)[:, None]
        self.w = int(width) + 2
        self.p = np.zeros((len(self.theta), 2 * self.w + 1))
        self.p[:, self.w] = 1.0
        self.lo = self.hi = self.w          # columns that may hold mass
        self.cum_up = np.zeros(len(self.theta))
        self.cum_down = np.zeros(len(self.theta))

    def advance(self, steps: np.ndarray) -> None:
        """Each row takes ``steps[row]`` more discordant pairs (+1 with probability θ, −1 otherwise)."""
        steps = np.asarray(steps)
        for j in range(int(steps.max(initial=0))):
            rows = steps > j
            lo, hi = self.lo - 1, self.hi + 1
            cur = self.p[rows, lo - 1:hi + 2]
            th = self.theta[rows]
            self.p[rows, lo:hi + 1] = th * cur[:, :-2] + (1 - th) * cur[:, 2:]
            self.lo, self.hi = lo, hi

    def absorb(self, up: np.ndarray | float, down: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
        """Boundaries ``(u, l)`` per row: the smallest ``u`` (largest ``l``) whose cumulative crossing mass stays
        within ``up`` (``down``); the mass at ``S >= u`` and ``S <= l`` is absorbed.  ``u`` past the walk's
        reach means no rejection is possible yet."""
        win = self.p[:, self.lo:self.hi + 1]
        n = win.shape[1]
        tail_up = np.concatenate([np.cumsum(win[:, ::-1], axis=1)[:, ::-1], np.zeros((len(win), 1))], axis=1)
        tail_down = np.concatenate([np.zeros((len(win), 1)), np.cumsum(win, axis=1)], axis=1)
        ok_up = self.cum_up[:, None] + tail_up <= np.asarray(up, dtype=float).reshape(-1, 1) * (1 + TOL) + 1e-300
        ok_down = self.cum_down[:, None] + tail_down <= np.asarray(down, dtype=float).reshape(-1, 1) * (1 + TOL) + 1e-300
        iu = ok_up.argmax(axis=1)                       # first column from the bottom whose upper tail fits
        idn = n - ok_down[:, ::-1].argmax(axis=1)       # last cut from the top whose lower tail fits
        rows = np.arange(len(win))
        self.cum_up += tail_up[rows, iu]
        self.cum_down += tail_down[rows, idn]
        cols = np.arange(n)[None, :]
        win[(cols >= iu[:, None]) | (cols < idn[:, None])] = 0.0
        base = self.lo - self.w
        u, low = iu + base, idn - 1 + base
        alive = np.nonzero(win.any(axis=0))[0]
        if len(alive):
            self.lo, self.hi = self.lo + int(alive[0]), self.lo + int(alive[-1])
        return u, low


# --- one comparison -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """The test's state after one round."""

    round: int
    pairs: int
    a_wins: int          # discordant pairs where only A passed
    b_wins: int          # discordant pairs where only B passed
    bound: int           # |B-only − A-only| that decides at this round (pairs + 1: none can yet)
    spent: float         # α spent so far
    p_value: float       # repeated p-value: the smallest α at which the design would have decided by now
    effect: float        # (b_wins − a_wins) / pairs: B's pass rate minus A's
    lo: float            # interval for the effect (see the module docstring)
    hi: float
    decision: str        # B | A | no difference | undecided | continue
    power_left: float = 1.0   # chance to decide by the budget's end at the effect seen so far


def _fractions(ends: Sequence[int], looks: int) -> list[float]:
    return [(k + 1) / max(looks, len(ends)) for k in range(len(ends))]


def decided_at(d: np.ndarray, ends: Sequence[int], alphas: np.ndarray, rho: float, looks: int) -> np.ndarray:
    """For each level in ``alphas``, the first look (0-based) at which the design at that level decides on
    outcomes ``d`` (``len(ends)``: not yet)."""
    d = np.asarray(d)
    alphas = np.asarray(alphas, dtype=float)
    m = [int((d[:e] != 0).sum()) for e in ends]
    s = [int(d[:e].sum()) for e in ends]
    walk = Walk(np.full(len(alphas), 0.5), max(m, default=0))
    at = np.full(len(alphas), len(ends))
    prev = 0
    for k, t in enumerate(_fractions(ends, looks)):
        walk.advance(np.full(len(alphas), m[k] - prev))
        prev = m[k]
        half = alphas * min(1.0, t) ** rho / 2
        u, low = walk.absorb(half, half)
        hit = (at == len(ends)) & ((s[k] >= u) | (s[k] <= low))
        at[hit] = k
    return at


def repeated_p(d: np.ndarray, ends: Sequence[int], rho: float, looks: int, alpha: float) -> list[float]:
    """After each look, the repeated p-value: the level of the first design, counting down from ``alpha``
    (when the test has decided) or up from it (when not), at which the decision would flip — so ``p <= alpha``
    exactly when the level-``alpha`` test has decided.  (Exact discrete designs are not quite nested in their
    level; reading the levels from ``alpha`` outwards keeps the p-value and the decision one answer.)"""
    levels = np.unique(np.concatenate([np.logspace(-10, 0, 1501), [alpha]]))
    at = decided_at(d, ends, levels, rho, looks)
    i_alpha = int(np.searchsorted(levels, alpha))
    out = []
    for k in range(len(ends)):
        decided = at <= k
        if decided[i_alpha]:
            below = np.nonzero(~decided[:i_alpha])[0]
            out.append(float(levels[below[-1] + 1]) if len(below) else float(levels[0]))
        else:
            above = np.nonzero(~decided[i_alpha:])[0]
            out.append(float(levels[i_alpha + above[-1]]))
    return out


def psi_bounds(m: int, n: int, alpha: float) -> tuple[float, float]:
    """Anytime confidence sequence for the disagreement rate after ``m`` of ``n`` pairs disagreed: the ψ whose
    beta-binomial mixture martingale (uniform prior) stays below ``1/alpha``."""
    from scipy.special import betaln
    if n == 0:
        return 0.0, 1.0
    grid = np.linspace(0.0, 1.0, 2001)
    with np.errstate(divide="ignore", invalid="ignore"):
        loglik = m * np.log(grid) + (n - m) * np.log1p(-grid)
    loglik = np.nan_to_num(loglik, nan=0.0, neginf=-np.inf)
    keep = betaln(m + 1, n - m + 1) - loglik < math.log(1 / alpha)
    idx = np.nonzero(keep)[0]
    step = grid[1] - grid[0]
    return max(0.0, float(grid[idx[0]]) - step), min(1.0, float(grid[idx[-1]]) + step)


def effect_bounds(theta_lo: float, theta_hi: float, psi_lo: float, psi_hi: float) -> tuple[float, float]:
    """The effect ``ψ (2θ − 1)`` over a box of θ and ψ: its smallest and largest value."""
    lo, hi = 2 * theta_lo - 1, 2 * theta_hi - 1
    return (lo * (psi_hi if lo < 0 else psi_lo), hi * (psi_hi if hi > 0 else psi_lo))


def conditional_power(s: np.ndarray | int, m: np.ndarray | int, t: float, alpha: float) -> np.ndarray:
    """Chance to cross the final boundary by the end of the budget if the effect stays what it is so far
    (normal approximation: B(t) = Z sqrt(t) drifts at B(t) / t; the final boundary taken as z_{1-α/2})."""
    s, m = np.asarray(s, dtype=float), np.asarray(m, dtype=float)
    if t >= 1:
        return np.zeros(np.shape(s))
    z = np.where(m > 0, np.abs(s) / np.sqrt(np.maximum(m, 1.0)), 0.0)
    b = z * math.sqrt(t)
    return 1 - norm_cdf((norm_ppf(1 - alpha / 2) - b / t) / math.sqrt(1 - t))


def futile(power_left: float | np.ndarray, t: float) -> bool | np.ndarray:
    return (FUTILITY_FROM <= t < 1) & (np.asarray(power_left) < FUTILITY_POWER)


def decide(b_wins: int, a_wins: int, crossed: bool, lo: float, hi: float, *, min_effect: float,
           budget_spent: bool, hopeless: bool = False) -> str:
    if crossed and a_wins != b_wins:
        return "B" if b_wins > a_wins else "A"
    if -min_effect < lo and hi < min_effect:
        return "no difference"
    return "undecided" if budget_spent or hopeless else CONTINUE


def path(d: Sequence[int], ends: Sequence[int], *, alpha: float, min_effect: float, looks: int,
         rho: float = RHO_INDEPENDENT, budget_spent: bool = False, stop: bool = True,
         futility: bool = True) -> list[Step]:
    """The test after each round: ``d`` are the pair outcomes so far, ``ends[k]`` the number of pairs at the
    end of round k+1, ``looks`` the rounds in the budget.  The last step says ``undecided`` when the budget
    is spent, or earlier when deciding within it has become hopeless (``futility``).  With ``stop`` the path
    ends at the first decision."""
    arr = np.asarray(d, dtype=int)
    theta = np.linspace(0.0, 1.0, THETA_GRID)
    theta[THETA_GRID // 2] = 0.5
    total_m = int((arr != 0).sum())
    walk = Walk(theta, total_m)
    accepted = np.ones(THETA_GRID, dtype=bool)
    p_values = repeated_p(arr, ends, rho, looks, alpha)
    steps: list[Step] = []
    prev_m, crossed = 0, False
    for k, (end, t) in enumerate(zip(ends, _fractions(ends, looks))):
        seen = arr[:end]
        m, s = int((seen != 0).sum()), int(seen.sum())
        b_wins, a_wins = int((seen > 0).sum()), int((seen < 0).sum())
        walk.advance(np.full(THETA_GRID, m - prev_m))
        prev_m = m
        half = spent(alpha, t, rho) / 2
        u, low = walk.absorb(np.full(THETA_GRID, half), np.full(THETA_GRID, half))
        accepted &= (low < s) & (s < u)
        crossed = crossed or not accepted[THETA_GRID // 2]
        th_lo, th_hi = _theta_range(theta, accepted, s)
        p_lo, p_hi = psi_bounds(m, end, alpha * PSI_SHARE)
        lo, hi = effect_bounds(th_lo, th_hi, p_lo, p_hi) if end else (-1.0, 1.0)
        last = k == len(ends) - 1
        left = float(conditional_power(s, m, t, alpha))
        dec = decide(b_wins, a_wins, crossed, lo, hi, min_effect=min_effect, budget_spent=budget_spent and last,
                     hopeless=futility and bool(futile(left, t)))
        bound = int(u[THETA_GRID // 2])
        bound = min(bound + (bound - m) % 2, m + 1) if bound > 0 else m + 1   # the next |S| of m's parity
        steps.append(Step(k + 1, end, a_wins, b_wins, bound, round(spent(alpha, t, rho), 6), p_values[k],
                          (b_wins - a_wins) / end if end else 0.0, round(float(lo), 6) + 0.0,
                          round(float(hi), 6) + 0.0, dec, round(left, 4)))
        if stop and dec != CONTINUE:
            break
    return steps


def _theta_range(theta: np.ndarray, accepted: np.ndarray, s: int) -> tuple[float, float]:
    """Outer bounds of the θ not rejected so far, on the side of ½ the walk is on when ½ itself is rejected."""
    half = len(theta) // 2
    keep = accepted.copy()
    if not keep[half]:
        keep[:half + 1] = keep[:half + 1] & (s < 0)
        keep[half:] = keep[half:] & (s > 0)
    idx = np.nonzero(keep)[0]
    if not len(idx):
        return (0.5, 0.5)
    lo_i, hi_i = int(idx[0]), int(idx[-1])
    return float(theta[max(lo_i - 1, 0)]), float(theta[min(hi_i + 1, len(theta) - 1)])


# --- many comparisons (plan, benchmarks) ---------------------------------------------------------

@dataclass
class Simulated:
    decision: np.ndarray    # per experiment: index into DECISIONS (0 B, 1 A, 3 undecided)
    pairs: np.ndarray       # pairs run before stopping


def simulate(d: np.ndarray, round_size: int, *, alpha: float, rho: float = RHO_INDEPENDENT,
             futility: bool = True) -> Simulated:
    """The test on pre-drawn outcomes ``d`` (experiments, pairs); the budget is ``d.shape[1]`` pairs (whole
    rounds), a look after every round; with ``futility`` a hopeless experiment stops undecided as
    ``compare`` stops it.  (The "no difference" interval is not simulated: it needs an interval per
    experiment; at the effects power is computed for it is rare, and it never decides A or B.)"""
    d = np.asarray(d)
    n_exp, n = d.shape
    rounds = n // round_size
    disc = np.cumsum(d != 0, axis=1)
    s = np.cumsum(d, axis=1)
    walk = Walk(np.full(n_exp, 0.5), n)
    decision = np.full(n_exp, 3)
    at = np.full(n_exp, rounds - 1)
    alive = np.ones(n_exp, dtype=bool)
    prev = np.zeros(n_exp, dtype=int)
    for r in range(rounds):
        end = (r + 1) * round_size - 1
        walk.advance(disc[:, end] - prev)
        prev = disc[:, end]
        half = spent(alpha, (r + 1) / rounds, rho) / 2
        u, low = walk.absorb(half, half)
        hit = alive & ((s[:, end] >= u) | (s[:, end] <= low))
        decision[hit] = np.where(s[hit, end] > 0, 0, 1)
        at[hit] = r
        alive &= ~hit
        if futility:
            t = (r + 1) / rounds
            stop = alive & futile(conditional_power(s[:, end], disc[:, end], t, alpha), t)
            at[stop] = r
            alive &= ~stop
        if not alive.any():
            break
    return Simulated(decision, (at + 1) * round_size)


def mcnemar_critical(m: np.ndarray, alpha: float) -> np.ndarray:
    """Largest k with exact two-sided McNemar p = 2 P(Bin(m, 1/2) <= k) <= alpha (-1: none)."""
    from scipy.special import bdtr, bdtrik
    m = np.asarray(m)
    q = alpha / 2
    with np.errstate(invalid="ignore"):   # m = 0 has no quantile: -1 below
        vals = np.ceil(bdtrik(q, m, 0.5))   # binom.ppf(q, m, 1/2), as scipy.stats computes it
        vals1 = np.maximum(vals - 1, 0)
        k = np.where(bdtr(vals1, m, 0.5) >= q, vals1, vals)
        k = np.where(binom_cdf(np.nan_to_num(k), m, 0.5) <= q, k, k - 1)
        return np.where(m > 0, np.nan_to_num(k, nan=-1.0), -1).astype(int)


_CRITICAL: dict[float, np.ndarray] = {}   # alpha -> mcnemar_critical(arange(N), alpha), grown as needed


def critical_upto(pairs: int, alpha: float) -> np.ndarray:
    """``mcnemar_critical(np.arange(pairs + 1), alpha)``, computed once per process for a growing range (a plan
    asks for every pair count up to its answer)."""
    have = _CRITICAL.get(alpha)
    if have is None or len(have) <= pairs:
        have = mcnemar_critical(np.arange(max(pairs + 1, 2 * len(have) if have is not None else 256)), alpha)
        _CRITICAL[alpha] = have
    return have[:pairs + 1]


def fixed_power(pairs: int, psi: float, delta: float, alpha: float) -> float:
    """Power of the exact McNemar test with ``pairs`` pairs, discordance ``psi``, effect ``delta``."""
    m = np.arange(pairs + 1)
    k = critical_upto(pairs, alpha)
    theta = min(1.0, max(0.0, (psi + delta) / (2 * psi))) if psi > 0 else 0.5
    rej = np.where(k >= 0, binom_cdf(k, m, theta) + binom_sf(m - k - 1, m, theta), 0.0)
    return float((binom_pmf(m, pairs, psi) * rej).sum())


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


# --- how many runs (plan, the next step of an undecided comparison) ---------------------------------

@dataclass(frozen=True)
class Forecast:
    fixed_pairs: int | None      # exact McNemar at the asked power
    budget_pairs: int | None     # the sequential design's budget at that power (whole rounds)
    mean_pairs: float | None     # pairs it runs on average when the effect is real


@lru_cache(maxsize=64)
def design_ratios(alpha: float, power: float, rho: float, looks: int) -> tuple[float, float]:
    """(budget, mean sample) of the α-spending design (with its futility stop) relative to the fixed design at
    the same α and power, from the normal approximation of the walk: Brownian motion with drift, looked at ``looks`` equally spaced
    times (at most :data:`MAX_LOOKS`: more looks change the ratios by a percent or two), densities carried on
    a grid from look to look (Armitage–McPherson–Rowe)."""
    looks = max(1, min(looks, MAX_LOOKS))
    z_final = float(norm_ppf(1 - alpha / 2))
    fixed = z_final + float(norm_ppf(power))
    step = 1.0 / looks
    h = min(0.02, math.sqrt(step) / 6)
    span = 10.0 + 3 * fixed
    b = np.arange(-span, span + h / 2, h)
    half_k = int(math.ceil(8 * math.sqrt(step) / h))
    offs = np.arange(-half_k, half_k + 1) * h

    def run(drift: float, bounds: list[float] | None) -> tuple[float, float, list[float]]:
        dens = np.zeros_like(b)
        dens[np.argmin(np.abs(b))] = 1.0 / h           # B(0) = 0
        kern = norm_pdf(offs, loc=drift * step, scale=math.sqrt(step)) * h
        made: list[float] = []
        cum = rejected = expected = 0.0
        for k in range(looks):
            t = (k + 1) * step
            dens = np.convolve(dens, kern[::-1], mode="same")
            if bounds is None:                          # the null: the boundary spends alpha * t^rho
                tail = np.cumsum((dens * h)[::-1])[::-1]
                fits = 2 * tail <= (alpha * t ** rho - cum) * (1 + 1e-9)
                i = int(np.argmax(fits)) if fits.any() else len(b) - 1
                c = float(b[i])
                made.append(c)
            else:
                c = bounds[k]
            out = np.abs(b) >= c
            crossed = float((dens * out).sum() * h)
            cum += crossed
            rejected += crossed
            expected += crossed * t
            dens = np.where(out, 0.0, dens)
            if bounds is not None and FUTILITY_FROM <= t < 1:    # hopeless: |B(t)| / t below the CP rule's line
                line = t * (z_final - norm_ppf(1 - FUTILITY_POWER) * math.sqrt(1 - t))
                stop = np.abs(b) < line
                expected += float((dens * stop).sum() * h) * t
                dens = np.where(stop, 0.0, dens)
        return rejected, expected + float(dens.sum() * h), made

    _, _, null_bounds = run(0.0, None)
    lo, hi = fixed * 0.9, fixed * 1.8
    for _ in range(25):
        mid = (lo + hi) / 2
        if run(mid, null_bounds)[0] >= power:
            hi = mid
        else:
            lo = mid
    _, expected, _ = run(hi, null_bounds)
    budget = (hi / fixed) ** 2
    return budget, expected * budget


def forecast(psi: float, effect: float, alpha: float, power: float, *, per_round: int,
             rho: float = RHO_INDEPENDENT) -> Forecast:
    """Pairs the fixed design needs for ``power`` at ``effect`` with disagreement ``psi``, and the budget and
    mean pairs of the sequential design (its ratios to the fixed design from :func:`design_ratios`)."""
    fixed = fixed_pairs(psi, min(abs(effect), psi), alpha, power)
    if fixed is None:
        return Forecast(None, None, None)
    looks = max(1, -(-fixed // per_round))
    for _ in range(3):   # the number of looks depends on the budget, the budget a little on the looks
        budget_ratio, mean_ratio = design_ratios(alpha, power, rho, looks)
        budget = per_round * max(1, math.ceil(fixed * budget_ratio / per_round))
        looks = budget // per_round
    return Forecast(fixed, budget, min(float(budget), fixed * mean_ratio))
