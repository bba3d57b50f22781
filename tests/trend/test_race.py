"""The race behind `swarmgym tune`: its promises on simulated arms (thousands of races side by side)."""
from __future__ import annotations

import numpy as np
import pytest

from swarmgym.trend.race import BEST, NO_BETTER, UNDECIDED, Race


def run(p, *, coupled: bool, n_exp=400, eps=0.2, alpha=0.05, baseline=None, rounds=120, seed=1,
        every_arm=False) -> Race:
    """``every_arm``: every arm still racing runs every round (uniform rounds), not only the contenders."""
    rng = np.random.default_rng(seed)
    k = len(p)
    race = Race(k, alpha=alpha, min_effect=eps, baseline=k - 1 if baseline is None else baseline, n_exp=n_exp)
    for r in range(rounds):
        ran = race.alive.copy() if every_arm else None
        for _ in range(3):
            u = rng.random((n_exp, 1)) if coupled else rng.random((n_exp, k))
            race.observe(u < np.asarray(p), ran=ran)
        race.review(budget_spent=r == rounds - 1)
        if not race.running.any():
            break
    return race


@pytest.mark.parametrize("coupled", [True, False])
def test_a_best_arm_that_leads_by_the_minimum_effect_is_named_best_at_the_asked_confidence(coupled):
    race = run([0.6, 0.4, 0.4, 0.4], coupled=coupled)            # the least favourable: every other arm 0.2 behind
    assert (race.decision != UNDECIDED).mean() >= 0.99
    assert (race.winner == 0).mean() >= 0.95 and (race.decision[race.winner == 0] == BEST).all()


@pytest.mark.parametrize("coupled", [True, False])
def test_eight_arms_at_the_least_favourable_configuration_name_a_wrong_arm_at_most_alpha_of_the_time(coupled):
    race = run([0.6] + [0.4] * 7, coupled=coupled, n_exp=300, seed=5)
    wrong = (race.winner != 0) & (race.decision != UNDECIDED)
    assert wrong.mean() <= 0.05 and (race.decision == UNDECIDED).mean() <= 0.05


def test_a_clear_winner_is_named_sooner_and_arms_far_behind_sit_rounds_out():
    p = [0.7, 0.5, 0.35, 0.35, 0.35, 0.35]       # four arms too far behind to win, too close to leave quickly
    lucb, uniform = run(p, coupled=False, n_exp=300, seed=3), run(p, coupled=False, n_exp=300, seed=3, every_arm=True)
    assert (lucb.winner == 0).mean() >= 0.95 and (uniform.winner == 0).mean() >= 0.95
    assert lucb.runs.mean() <= 0.85 * uniform.runs.mean()
    # the arms 0.35 behind ran far less than the two that decide it
    assert lucb.seen[:, 2:].mean() <= 0.75 * lucb.seen[:, :2].mean()
    clear = run([0.9, 0.3, 0.3, 0.3], coupled=False, n_exp=300, seed=4)
    lfc = run([0.6, 0.4, 0.4, 0.4], coupled=False, n_exp=300, seed=4)
    assert (clear.winner == 0).mean() >= 0.99 and clear.runs.mean() <= 0.5 * lfc.runs.mean()


def test_equal_independent_arms_never_show_an_arm_better_than_the_baseline_beyond_alpha():
    race = run([0.5, 0.5, 0.5, 0.5], coupled=False, n_exp=300, seed=6, rounds=80)
    decided = race.decision != UNDECIDED
    # any arm is within min-effect of the best (a right answer), but none is better than the baseline
    shown_better = decided & (race.winner != 3) & (race.lo[np.arange(300), race.winner, 3] > 0)
    assert shown_better.mean() <= 0.05
    assert set(race.decision) <= {BEST, NO_BETTER, UNDECIDED}


def test_arms_shown_worse_leave_the_race_and_the_clearly_worst_go_first():
    race = run([0.8, 0.55, 0.3, 0.1], coupled=False, n_exp=200)
    assert (race.winner == 0).mean() >= 0.95
    # an arm far behind is dropped by the best (or by another better arm), never the other way round
    assert (race.eliminated_by[:, 0] == -1).mean() >= 0.95


def test_when_every_arm_is_equal_no_arm_is_better_than_the_baseline():
    race = run([0.5, 0.5, 0.5], coupled=True, n_exp=100)
    assert (race.decision == NO_BETTER).all() and (race.winner == 2).all()


def test_an_undecided_race_names_its_leader():
    race = run([0.52, 0.5, 0.5], coupled=False, n_exp=50, eps=0.01, rounds=3)
    assert (race.decision == UNDECIDED).all()
    assert set(race.leader()) <= {0, 1, 2}
