"""The sequential test behind `swarmgym compare`: its promises, checked on simulated pairs."""
import numpy as np
import pytest

from swarmgym.comparison import sequential as sq
from swarmgym.trend.stats import mcnemar_counts

ALPHA = 0.05


def rates(d: np.ndarray, budget: int, **kw) -> np.ndarray:
    sim = sq.simulate(d[:, :budget], 3, alpha=ALPHA, min_effect=0.1, grid=201, **kw)
    return np.bincount(sim.decision, minlength=4) / len(sim.decision)


@pytest.mark.parametrize("psi", [0.1, 0.4, 0.8])
def test_type_one_error_on_null_pairs_stays_below_alpha_at_every_look(psi):
    """Equal arms whose runs disagree often: checked after every round for 80 rounds, the test
    claims A or B in at most alpha of the experiments (Ville's inequality, not a single look)."""
    d = sq.draw_pairs(np.random.default_rng(11), psi, 0.0, (4000, 240))
    r = rates(d, 240, futility=False)
    assert r[0] + r[1] <= ALPHA


def test_no_difference_is_wrong_at_most_alpha_when_the_effect_is_the_minimum():
    d = sq.draw_pairs(np.random.default_rng(5), 0.1, 0.1, (2000, 150))
    assert rates(d, 150)[2] <= ALPHA


@pytest.mark.parametrize("effect,winner,loser", [(0.3, 0, 1), (-0.3, 1, 0)])
def test_known_effects_are_detected_with_the_right_sign(effect, winner, loser):
    d = sq.draw_pairs(np.random.default_rng(3), 0.45, effect, (2000, 90))
    r = rates(d, 90)
    assert r[winner] >= 0.8
    assert r[loser] <= 0.01


def test_identical_arms_stop_for_futility_with_an_interval_inside_min_effect():
    steps = sq.path([0] * 60, list(range(3, 61, 3)), alpha=ALPHA, min_effect=0.1)
    last = steps[-1]
    assert last.decision == "no difference"
    assert -0.1 < last.lo <= 0 <= last.hi < 0.1
    assert last.pairs < 60 and all(s.decision == "continue" for s in steps[:-1])


def test_budget_spent_without_evidence_is_undecided():
    d = [1, -1, 0] * 4
    steps = sq.path(d, [3, 6, 9, 12], alpha=ALPHA, min_effect=0.1, budget_spent=True)
    assert [s.decision for s in steps] == ["continue"] * 3 + ["undecided"]
    assert steps[-1].p_value == 1.0


def test_decides_after_as_few_one_sided_discordant_pairs_as_exact_mcnemar_needs():
    n = sq.min_discordant(ALPHA)
    assert mcnemar_counts(0, n).p <= ALPHA < mcnemar_counts(0, n - 1).p
    assert sq.path([1] * n, [n], alpha=ALPHA, min_effect=0.1)[-1].decision == "B"
    assert sq.path([-1] * n, [n], alpha=ALPHA, min_effect=0.1)[-1].decision == "A"
    assert sq.path([1] * (n - 1), [n - 1], alpha=ALPHA, min_effect=0.1)[-1].decision == "continue"


def test_p_value_is_one_over_the_largest_e_value_so_far():
    steps = sq.path([1, 1, 1, -1, -1, -1, -1, -1, -1], [3, 6, 9], alpha=ALPHA, min_effect=0.1, stop=False)
    assert steps[0].log_e > steps[2].log_e
    assert steps[2].p_value == pytest.approx(np.exp(-steps[0].log_e))


def test_confidence_sequence_covers_the_true_effect_at_all_times():
    d = sq.draw_pairs(np.random.default_rng(9), 0.5, 0.2, (1000, 60))
    lo, hi = sq.confidence_sequence(d, ALPHA, grid=201)
    assert ((lo <= 0.2) & (0.2 <= hi)).all(axis=1).mean() >= 1 - ALPHA


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
