"""Known values for the benchmark statistics."""
from __future__ import annotations

import math

import pytest

from swarmgym.trend import stats


def test_wilson_interval_for_8_of_10():
    lo, hi = stats.wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)


def test_wilson_interval_edges():
    lo, hi = stats.wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = stats.wilson(10, 10)
    assert lo == pytest.approx(0.7225, abs=1e-4) and hi == pytest.approx(1.0)
    assert all(math.isnan(x) for x in stats.wilson(0, 0))
    with pytest.raises(ValueError):
        stats.wilson(11, 10)


def test_the_interval_and_the_exact_tests_are_scipys_on_every_count_up_to_60():
    """wilson and the fair-coin binomial test are computed without SciPy (a CLI call starts without it): they are
    SciPy's numbers, for every count a campaign of up to 60 runs can give and three confidences."""
    from scipy.stats import binomtest
    for n in range(1, 61):
        for k in range(n + 1):
            res = binomtest(k, n, 0.5)
            assert stats.binom_half_p(k, n) == pytest.approx(res.pvalue, rel=1e-9, abs=1e-15), (k, n)
            for conf in (0.8, 0.95, 0.99):
                ci = res.proportion_ci(confidence_level=conf, method="wilson")
                assert stats.wilson(k, n, conf) == pytest.approx((ci.low, ci.high), rel=1e-12, abs=1e-15), (k, n, conf)
    assert stats.binom_half_p(0, 0) == 1.0


def test_exact_mcnemar_on_9_against_1_discordant_pairs():
    m = stats.mcnemar_counts(9, 1)
    assert m.p == pytest.approx(0.021484375)  # 2 * (1 + 10) / 2**10
    pairs = [(True, False)] * 9 + [(False, True)] + [(True, True)] * 5 + [(False, False)] * 5
    m2 = stats.mcnemar(pairs)
    assert (m2.b, m2.c, m2.pairs) == (9, 1, 20) and m2.p == pytest.approx(0.0215, abs=1e-4)


def test_mcnemar_without_discordant_pairs_is_no_evidence():
    assert stats.mcnemar([(True, True), (False, False)]).p == 1.0


def test_sign_test_over_specs():
    s = stats.sign_test([0.2, 0.4, 0.1])
    assert (s.positive, s.negative, s.ties) == (3, 0, 0) and s.p == pytest.approx(0.25)
    s = stats.sign_test([0.1] * 9 + [-0.2, 0.0])
    assert (s.positive, s.negative, s.ties) == (9, 1, 1) and s.p == pytest.approx(0.021484375)
    assert stats.sign_test([0.0, 0.0]).p == 1.0


def test_mean_and_standard_error_over_specs():
    mean, se = stats.mean_se([0.2, 0.4, 0.6])
    assert mean == pytest.approx(0.4) and se == pytest.approx(0.2 / math.sqrt(3))
    mean, se = stats.mean_se([0.3])
    assert mean == pytest.approx(0.3) and math.isnan(se)


@pytest.mark.parametrize("n, c, k, expected", [
    (10, 3, 1, 0.3),                 # pass@1 is the pass rate
    (5, 2, 3, 1 - 1 / 10),           # 1 - C(3,3)/C(5,3)
    (10, 0, 5, 0.0),
    (10, 6, 5, 1.0),                 # fewer than k failures: every k-sample has a pass
    (10, 1, 5, 0.5),                 # 1 - C(9,5)/C(10,5) = 1 - 126/252
    (4, 1, 2, 0.5),                  # 1 - C(3,2)/C(4,2) = 1 - 3/6
])
def test_unbiased_pass_at_k(n, c, k, expected):
    assert stats.pass_at_k(n, c, k) == pytest.approx(expected)


def test_pass_at_k_needs_at_least_k_reps():
    with pytest.raises(ValueError, match="pass@5 needs at least 5 reps"):
        stats.pass_at_k(3, 1, 5)


def test_wall_stats_match_numpy_conventions():
    w = stats.wall_stats([3, 1, 4, 1, 5, 9, 2, 6])
    assert (w.n, w.median, w.mean, w.min, w.max) == (8, 3.5, 3.875, 1, 9)
    assert w.p90 == pytest.approx(6.9) and w.stdev == pytest.approx(2.7484, abs=1e-4)
    assert stats.wall_stats([]).n == 0 and math.isnan(stats.wall_stats([2.0]).stdev)
