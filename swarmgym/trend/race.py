"""Which of K arms is best: an anytime-valid race that drops arms as soon as they are shown worse.

Each round runs some arms on the same specs and seeds, so each *stage* (one spec of one round) gives every
arm that ran one outcome, and every two of them a paired difference ``D = X_j − X_i`` in {−1, 0, +1}.  For
every pair of arms a confidence sequence for ``μ_j − μ_i`` (:class:`PairCS`: the betting confidence
sequence of Waudby-Smith & Ramdas, its bets sized for the margin the race must resolve) gives a lower and an
upper bound, **each one-sided at** ``alpha / (K − 1)``.  Every wrong answer needs one of the K − 1 lower
bounds on ``μ_j − μ_best`` to be wrong, so they all hold at every round with probability ≥ 1 − alpha,
whatever the other arms do, however often the race looks and whichever arms it chose to run (a pair's bet
uses only that pair's past).  After each round:

- **elimination**: arm i leaves the race once some arm j still in it has ``lower(μ_j − μ_i) > 0``;
- **a winner**: arm j wins once ``lower(μ_j − μ_i) > −min_effect`` for every other arm i still in it (or it
  is the last one): j is then within ``min_effect`` of the best arm — and *is* the best arm when the best
  leads every other by at least ``min_effect`` — with probability ≥ 1 − alpha;
- when the winner is the baseline, **no arm is better than the baseline** by ``min_effect``;
- **who runs next** (:meth:`Race.contenders`, LUCB-style): the leader (the arm with the best pass rate so
  far), the baseline while its rate is within ``min_effect / 2`` of the leader's, and every arm still in the
  race that keeps one of them from winning.  An arm the leader already beats by enough sits out the round
  (it stays in the race and comes back if the leader changes), so the runs go where the answer is decided.

The same code runs one race (``swarmgym tune``) or thousands (``benchmarks/tune.py``): every array has a
leading axis of experiments.
"""
from __future__ import annotations

import math
from itertools import combinations

import numpy as np

GRID = 401          # candidate means of (D + 1) / 2 in (0, 1): interval resolution 0.005
BET_CAP = 0.95      # the largest bet, as a fraction of the largest safe one (simulator runs: ties bet near it)
CONTINUE, BEST, NO_BETTER, UNDECIDED = "continue", "best", "no arm better", "undecided"


class PairCS:
    """Betting confidence sequence for the mean of ``D`` in [−1, 1], one row per experiment, over a grid of
    candidate means (outer bounds: a coarse grid only widens it): the lower bound and the upper bound each at
    level ``alpha`` on its own.  Rows update only when observed.  Bets are sized for about ``t_star``
    observations (predictable, so valid at every time; tightest near ``t_star``)."""

    def __init__(self, n_exp: int, alpha: float, t_star: float, grid: int = GRID) -> None:
        self.alpha, self.step, self.t_star = alpha, 1.0 / grid, max(float(t_star), 4.0)
        self.m = np.linspace(self.step / 2, 1 - self.step / 2, grid)[None, :]
        self.cap_up, self.cap_down = BET_CAP / self.m, BET_CAP / (1 - self.m)
        self.log_up = np.zeros((n_exp, grid))
        self.log_down = np.zeros((n_exp, grid))
        self.alive = np.ones((n_exp, grid), dtype=bool)
        self.n = np.zeros(n_exp)
        self.total = np.full(n_exp, 0.5)
        self.sq = np.full(n_exp, 0.25)
        self.bound = math.log(1 / alpha)      # each side on its own: K_up < 1 / alpha, K_down < 1 / alpha

    def update(self, d: np.ndarray, rows: np.ndarray) -> None:
        if not len(rows):
            return
        x = (np.asarray(d, dtype=float) + 1.0) / 2.0
        self.n[rows] += 1
        n = self.n[rows]
        mean, var = self.total[rows] / n, np.maximum(self.sq[rows] / n, 1e-3)
        dev = x[:, None] - self.m
        lam = np.sqrt(2 * math.log(1 / self.alpha) / (var * self.t_star))[:, None]
        self.log_up[rows] += np.log1p(np.minimum(lam, self.cap_up) * dev)
        self.log_down[rows] += np.log1p(-np.minimum(lam, self.cap_down) * dev)
        self.alive[rows] &= (self.log_up[rows] < self.bound) & (self.log_down[rows] < self.bound)
        self.total[rows] += x
        self.sq[rows] += (x - mean) ** 2

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) per row for the mean of D; (−1, 1) before any observation."""
        grid = self.alive.shape[1]
        any_alive = self.alive.any(axis=1)
        first = self.m[0, self.alive.argmax(axis=1)] - self.step
        last = self.m[0, grid - 1 - self.alive[:, ::-1].argmax(axis=1)] + self.step
        return (np.where(any_alive, np.maximum(2 * first - 1, -1.0), 0.0),
                np.where(any_alive, np.minimum(2 * last - 1, 1.0), 0.0))


def design_pairs(level: float, min_effect: float) -> float:
    """The stages the race's bets are sized for: where its decision falls at the least favourable configuration
    (the best arm ``min_effect`` ahead, so its lower bound must sit ``2 · min_effect`` below the truth — ``min_effect``
    on the betting scale ``(D + 1) / 2``), at the variance two independent arms near ½ give (⅛ on that scale)."""
    return float(min(60.0, max(4.0, 2 * math.log(1 / level) * 0.125 / min_effect ** 2)))


class Race:
    """K arms racing, ``n_exp`` experiments side by side (``swarmgym tune`` runs one)."""

    def __init__(self, k: int, *, alpha: float, min_effect: float, baseline: int = 0, t_star: float | None = None,
                 n_exp: int = 1) -> None:
        if k < 2:
            raise ValueError("a race needs at least two arms")
        self.k, self.alpha, self.min_effect, self.baseline = k, alpha, min_effect, baseline
        self.pairs = list(combinations(range(k), 2))
        level = alpha / (k - 1)
        self.t_star = design_pairs(level, min_effect) if t_star is None else t_star
        self.cs = {p: PairCS(n_exp, level, self.t_star) for p in self.pairs}
        self.alive = np.ones((n_exp, k), dtype=bool)
        self.next = np.ones((n_exp, k), dtype=bool)   # the arms the next round runs (see :meth:`review`)
        self.decision = np.full(n_exp, CONTINUE, dtype=object)
        self.winner = np.full(n_exp, -1)
        self.eliminated_by = np.full((n_exp, k), -1)
        self.runs = np.zeros(n_exp)
        self.passes = np.zeros((n_exp, k))             # per arm: passes and outcomes seen (its pass rate)
        self.seen = np.zeros((n_exp, k))
        self.lo = np.full((n_exp, k, k), -1.0)    # lo[e, j, i]: lower bound of mu_j - mu_i
        self.hi = np.full((n_exp, k, k), 1.0)

    @property
    def running(self) -> np.ndarray:
        return self.decision == CONTINUE

    def observe(self, passed: np.ndarray, graded: np.ndarray | None = None, ran: np.ndarray | None = None) -> None:
        """One stage: ``passed[e, arm]``; ``graded`` False where a run gave no outcome (it pairs with nothing);
        ``ran`` the arms that ran (default: the contenders the last review chose, :attr:`next`)."""
        passed = np.asarray(passed, dtype=bool)
        graded = np.ones_like(passed) if graded is None else np.asarray(graded, dtype=bool)
        ran = self.next if ran is None else np.asarray(ran, dtype=bool)
        live = ran & self.alive & self.running[:, None]
        self.runs += live.sum(axis=1)
        ok = live & graded
        self.passes += ok & passed
        self.seen += ok
        for i, j in self.pairs:
            rows = np.nonzero(ok[:, i] & ok[:, j])[0]
            self.cs[(i, j)].update(passed[rows, j].astype(int) - passed[rows, i].astype(int), rows)

    def review(self, budget_spent: bool | np.ndarray = False) -> None:
        """After a round: drop arms shown worse, then stop the races that have a winner (or no budget left)."""
        run = self.running
        for i, j in self.pairs:
            lo, hi = self.cs[(i, j)].bounds()                   # mu_j - mu_i
            self.lo[:, j, i], self.hi[:, j, i] = lo, hi
            self.lo[:, i, j], self.hi[:, i, j] = -hi, -lo
            both = run & self.alive[:, i] & self.alive[:, j]
            for loser, winner, shown in ((i, j, lo > 0), (j, i, hi < 0)):
                out = both & shown & self.alive[:, loser]
                self.alive[out, loser] = False
                self.eliminated_by[out, loser] = winner
        good = np.zeros((len(run), self.k), dtype=bool)
        for j in range(self.k):
            g = run & self.alive[:, j]
            for i in range(self.k):
                if i != j:
                    g &= ~self.alive[:, i] | (self.lo[:, j, i] > -self.min_effect)
            good[:, j] = g
        # several arms within min_effect of every other: the baseline keeps its place (no arm is better by
        # min_effect); else the one with the best worst lower bound against the others
        pick = np.where(good[:, self.baseline], self.baseline, np.where(good, self.leader_scores(), -np.inf).argmax(axis=1))
        done = good.any(axis=1)
        self.winner[done] = pick[done]
        self.decision[done] = np.where(pick[done] == self.baseline, NO_BETTER, BEST)
        spent = np.broadcast_to(np.asarray(budget_spent), self.decision.shape)
        out = (self.decision == CONTINUE) & spent
        self.decision[out] = UNDECIDED
        self.next = self.contenders()

    def contenders(self) -> np.ndarray:
        """The arms the next round runs: the leader (the best pass rate so far), the baseline while its rate is
        within ``min_effect / 2`` of the leader's, and every arm still racing that keeps one of them from winning
        (their lower bound against it is not yet above ``-min_effect``).  An arm no candidate needs sits out (it
        stays in the race and comes back when the leader changes): the leader's bound against it is already as
        good as a win needs.  Never fewer than two arms."""
        rate = self.rates()
        lead = rate.argmax(axis=1)
        rows = np.arange(len(lead))
        base_in = self.alive[:, self.baseline] & (rate[:, self.baseline] >= rate[rows, lead] - self.min_effect / 2)
        out = np.zeros_like(self.alive)
        for cand, use in ((lead, np.ones(len(lead), dtype=bool)), (np.full(len(lead), self.baseline), base_in)):
            blocks = self.alive & (self.lo[rows, cand, :] <= -self.min_effect)
            blocks[rows, cand] = False
            out |= np.where(use[:, None], blocks, False)
            out[rows[use], cand[use]] = True
        out &= self.alive
        few = out.sum(axis=1) < 2          # never a round of one arm (it pairs with nothing)
        out[few] = self.alive[few]
        return out

    def rates(self) -> np.ndarray:
        """Per experiment and arm still racing: its pass rate so far (½ before any outcome); −inf once out."""
        rate = np.where(self.seen > 0, self.passes / np.maximum(self.seen, 1), 0.5)
        return np.where(self.alive, rate, -np.inf)

    def leader_scores(self) -> np.ndarray:
        """Per experiment and arm still racing: its worst lower bound against the other arms still racing."""
        worst = np.where(self.alive[:, :, None] & self.alive[:, None, :], self.lo, 1.0)
        for i in range(self.k):
            worst[:, i, i] = 1.0
        return np.where(self.alive, worst.min(axis=2), -np.inf)

    def leader(self) -> np.ndarray:
        """Per experiment: the winner, else the arm still racing with the best pass rate so far (the arm the
        next round is built around; what an undecided race would pick)."""
        return np.where(self.winner >= 0, self.winner, self.rates().argmax(axis=1))
