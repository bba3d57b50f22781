"""The race behind `swarmgym tune`: its promises on simulated arms (thousands of races side by side)."""
from __future__ import annotations

import numpy as np
import pytest

from swarmgym.trend.race import BEST, NO_BETTER, UNDECIDED, Race


def run(p, *, coupled: bool, n_exp=400, eps=0.2, alpha=0.05, baseline=None, rounds=120, seed=1) -> Race:
    rng = np.random.default_rng(seed)
    k = len(p)
    race = Race(k, alpha=alpha, min_effect=eps, baseline=k - 1 if baseline is None else baseline, t_star=30,
                n_exp=n_exp)
    for r in range(rounds):
        for _ in range(3):
            u = rng.random((n_exp, 1)) if coupled else rng.random((n_exp, k))
            race.observe(u < np.asarray(p))
        race.review(budget_spent=r == rounds - 1)
        if not race.running.any():
            break
    return race


@pytest.mark.parametrize("coupled", [True, False])
def test_a_best_arm_that_leads_by_the_minimum_effect_is_named_best_at_the_asked_confidence(coupled):
    race = run([0.6, 0.4, 0.4, 0.4], coupled=coupled)            # the least favourable: every other arm 0.2 behind
    assert (race.decision != UNDECIDED).mean() >= 0.99
    assert (race.winner == 0).mean() >= 0.95 and (race.decision[race.winner == 0] == BEST).all()


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
