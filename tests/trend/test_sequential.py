"""The sequential test behind `swarmgym compare`: its promises, checked exactly where they can be and on
simulated pairs where they cannot."""
import itertools

import numpy as np
import pytest

from swarmgym.trend import sequential as sq
from swarmgym.trend.stats import mcnemar_counts

ALPHA = 0.05


def _all_paths(psi: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every sequence of n pair outcomes and its probability under H0 with disagreement psi."""
    vals = [-1, 1] if psi == 1 else [-1, 0, 1]
    seqs = np.array(list(itertools.product(vals, repeat=n)))
    prob = {-1: psi / 2, 0: 1 - psi, 1: psi / 2}
    return seqs, np.prod(np.vectorize(prob.get)(seqs), axis=1)


@pytest.mark.parametrize("psi,n,rho", [(0.5, 9, sq.RHO_COUPLED), (0.5, 9, sq.RHO_INDEPENDENT), (0.2, 9, 1.0),
                                       (1.0, 15, sq.RHO_COUPLED)])
def test_type_one_error_is_at_most_alpha_exactly_over_every_look_of_the_budget(psi, n, rho):
    """Summed over every possible path (not sampled): the chance that equal arms are ever called different,
    looking after every round of 3 pairs, is at most alpha — at a level where the discreteness matters."""
    seqs, prob = _all_paths(psi, n)
    for alpha in (0.3, 0.1):
        sim = sq.simulate(seqs, 3, alpha=alpha, rho=rho, futility=False)
        assert (prob * (sim.decision < 2)).sum() <= alpha + 1e-12


@pytest.mark.parametrize("psi", [0.1, 0.5, 0.9])
def test_type_one_error_on_long_null_runs_stays_below_alpha(psi):
    d = sq.draw_pairs(np.random.default_rng(11), psi, 0.0, (4000, 150))
    sim = sq.simulate(d, 3, alpha=ALPHA)
    se = (ALPHA * (1 - ALPHA) / len(d)) ** 0.5
    assert (sim.decision < 2).mean() <= ALPHA + 2 * se


def test_decides_after_as_few_one_sided_discordant_pairs_as_exact_mcnemar_needs():
    n = 6
    assert mcnemar_counts(0, n).p <= ALPHA < mcnemar_counts(0, n - 1).p
    assert sq.path([1] * n, [n], alpha=ALPHA, min_effect=0.1, looks=1)[-1].decision == "B"
    assert sq.path([-1] * n, [n], alpha=ALPHA, min_effect=0.1, looks=1)[-1].decision == "A"
    assert sq.path([1] * (n - 1), [n - 1], alpha=ALPHA, min_effect=0.1, looks=1,
                   budget_spent=True)[-1].decision == "undecided"
    # the coupled shape lets 6 one-sided pairs among concordant ones decide from 39 % of the budget on
    d = [0, 0, 1] * 6
    steps = sq.path(d, [3 * k for k in range(1, 7)], alpha=ALPHA, min_effect=0.1, looks=15, rho=sq.RHO_COUPLED)
    assert steps[-1].decision == "B" and steps[-1].b_wins == 6 and steps[-1].a_wins == 0


def test_the_interval_excludes_zero_exactly_when_the_test_decides_and_on_its_side():
    rng = np.random.default_rng(4)
    for effect in (0.3, -0.3, 0.0, 0.15):
        for _ in range(6):
            d = sq.draw_pairs(rng, 0.5, effect, (1, 60))[0]
            for s in sq.path(d, list(range(3, 61, 3)), alpha=ALPHA, min_effect=0.05, looks=20, stop=False,
                             futility=False):
                if s.decision == "B":
                    assert s.lo > 0 and s.p_value <= ALPHA
                elif s.decision == "A":
                    assert s.hi < 0 and s.p_value <= ALPHA
                else:
                    assert s.lo <= 0 <= s.hi and s.p_value > ALPHA


def test_the_interval_covers_the_true_effect_at_every_round():
    rng = np.random.default_rng(9)
    covered = 0
    for _ in range(100):
        d = sq.draw_pairs(rng, 0.4, 0.2, (1, 45))[0]
        steps = sq.path(d, list(range(3, 46, 3)), alpha=ALPHA, min_effect=0.01, looks=15, stop=False, futility=False)
        covered += all(s.lo <= 0.2 <= s.hi for s in steps)
    assert covered / 100 >= 1 - 1.1 * ALPHA - 0.03   # 1 - alpha - alpha/10, less 3 points of sampling error


def test_identical_arms_end_with_no_difference_inside_the_minimum_effect():
    steps = sq.path([0] * 300, list(range(3, 301, 3)), alpha=ALPHA, min_effect=0.1, looks=100, futility=False)
    last = steps[-1]
    assert last.decision == "no difference" and -0.1 < last.lo <= 0 <= last.hi < 0.1
    assert all(s.decision == "continue" for s in steps[:-1])


def test_a_budget_that_can_no_longer_decide_stops_undecided_early():
    d = [1, -1, 0] * 30                 # the arms split evenly: at 40 % of the budget it is hopeless
    steps = sq.path(d, list(range(3, 91, 3)), alpha=ALPHA, min_effect=0.01, looks=30)
    assert steps[-1].decision == "undecided" and steps[-1].round < 30
    assert steps[-1].round / 30 >= sq.FUTILITY_FROM and steps[-1].power_left < sq.FUTILITY_POWER
    full = sq.path(d, list(range(3, 91, 3)), alpha=ALPHA, min_effect=0.01, looks=30, futility=False,
                   budget_spent=True)
    assert len(full) == 30 and full[-1].decision == "undecided"


def test_the_p_value_is_the_level_at_which_the_decision_would_flip():
    d = np.array([1] * 8)
    steps = sq.path(d, [4, 8], alpha=ALPHA, min_effect=0.1, looks=2, stop=False)
    assert steps[0].p_value > ALPHA and steps[1].p_value <= ALPHA and steps[1].decision == "B"
    p = steps[-1].p_value
    assert sq.decided_at(d, [4, 8], np.array([p * 1.02]), sq.RHO_INDEPENDENT, 2)[0] <= 1
    assert sq.decided_at(d, [4, 8], np.array([p * 0.97]), sq.RHO_INDEPENDENT, 2)[0] == 2


@pytest.mark.parametrize("effect,winner,loser", [(0.3, 0, 1), (-0.3, 1, 0)])
def test_known_effects_are_detected_with_the_right_sign(effect, winner, loser):
    d = sq.draw_pairs(np.random.default_rng(3), 0.45, effect, (2000, 120))
    r = np.bincount(sq.simulate(d, 3, alpha=ALPHA).decision, minlength=4) / 2000
    assert r[winner] >= 0.8 and r[loser] <= 0.01


def test_the_forecast_sizes_a_budget_that_reaches_the_power_it_promises():
    fc = sq.forecast(0.5, 0.25, ALPHA, 0.8, per_round=3)
    assert fc.fixed_pairs and fc.budget_pairs and fc.mean_pairs
    assert fc.fixed_pairs < fc.budget_pairs and fc.mean_pairs < fc.fixed_pairs
    d = sq.draw_pairs(np.random.default_rng(2), 0.5, 0.25, (2000, fc.budget_pairs))
    assert (sq.simulate(d, 3, alpha=ALPHA).decision == 0).mean() >= 0.78


def test_mcnemar_critical_values_match_the_exact_test():
    m = np.arange(1, 40)
    for mm, k in zip(m, sq.mcnemar_critical(m, ALPHA)):
        if k >= 0:
            assert mcnemar_counts(int(k), int(mm - k)).p <= ALPHA
        assert k + 1 > mm // 2 or mcnemar_counts(int(k + 1), int(mm - k - 1)).p > ALPHA


def test_fixed_design_needs_more_pairs_for_smaller_effects_and_more_disagreement():
    assert sq.fixed_pairs(0.3, 0.3, ALPHA) < sq.fixed_pairs(0.2, 0.2, ALPHA) < sq.fixed_pairs(0.1, 0.1, ALPHA)
    assert sq.fixed_pairs(0.5, 0.1, ALPHA) > sq.fixed_pairs(0.1, 0.1, ALPHA)
    n = sq.fixed_pairs(0.2, 0.2, ALPHA)
    assert sq.fixed_power(n, 0.2, 0.2, ALPHA) >= 0.8 > sq.fixed_power(n - 1, 0.2, 0.2, ALPHA)


def test_the_distributions_are_scipy_stats_numbers_without_scipy_stats():
    """The critical values, the exact power, the normal curve and Clopper–Pearson come from scipy.special's
    functions (scipy.stats costs a CLI call a second to import): they are scipy.stats' numbers."""
    from scipy.stats import beta, binom, norm

    from swarmgym.trend.answer import clopper_pearson

    m = np.arange(0, 2000)
    for alpha in (0.005, 0.01, 0.05, 0.1):
        k = binom.ppf(alpha / 2, m, 0.5)
        want = np.where(m > 0, np.where(binom.cdf(k, m, 0.5) <= alpha / 2, k, k - 1), -1).astype(int)
        assert (sq.mcnemar_critical(m, alpha) == want).all(), alpha
    for pairs in (*range(1, 60), 300, 1500):
        n = np.arange(pairs + 1)
        for p in (0.0, 0.05, 0.5, 0.83, 1.0):
            assert sq.binom_pmf(n, pairs, p) == pytest.approx(binom.pmf(n, pairs, p), rel=1e-9, abs=1e-14)
            assert sq.binom_cdf(n - 1, n, p) == pytest.approx(binom.cdf(n - 1, n, p), rel=1e-9, abs=1e-14)
            assert sq.binom_sf(n - 2, n, p) == pytest.approx(binom.sf(n - 2, n, p), rel=1e-9, abs=1e-14)
        for psi, delta in ((0.3, 0.0), (0.3, 0.15), (0.8, 0.4), (1.0, 1.0)):
            k = sq.mcnemar_critical(n, 0.05)
            theta = (psi + delta) / (2 * psi)
            rej = np.where(k >= 0, binom.cdf(k, n, theta) + binom.sf(n - k - 1, n, theta), 0.0)
            assert sq.fixed_power(pairs, psi, delta, 0.05) == pytest.approx(
                float((binom.pmf(n, pairs, psi) * rej).sum()), rel=1e-9, abs=1e-12)
    x = np.linspace(-9, 9, 721)
    assert sq.norm_cdf(x) == pytest.approx(norm.cdf(x), rel=1e-12, abs=1e-300)
    assert sq.norm_pdf(x, 0.4, 0.7) == pytest.approx(norm.pdf(x, loc=0.4, scale=0.7), rel=1e-12, abs=1e-300)
    q = np.linspace(0.001, 0.999, 101)
    assert sq.norm_ppf(q) == pytest.approx(norm.ppf(q), rel=1e-12)
    for n in range(1, 40):
        for k in range(n + 1):
            lo, hi = clopper_pearson(k, n, 0.05)
            assert lo == (0.0 if k == 0 else pytest.approx(beta.ppf(0.025, k, n - k + 1), rel=1e-12))
            assert hi == (1.0 if k == n else pytest.approx(beta.ppf(0.975, k + 1, n - k), rel=1e-12))
