"""Change detection (issue #22): the statistics on known tables and the verdict rule on a real ledger."""
from __future__ import annotations

import pytest
from scipy.stats import false_discovery_control

from swarmgym.models import CampaignChange, ChangeTest
from swarmgym.trend import stats
from swarmgym.trend.baseline import save_pins
from tests.support.trend import record_night, rows

SPECS = ("crud", "compute", "txn")


def high(passes: tuple[int, int, int], reps: int = 10) -> dict[str, list[bool]]:
    return {s: rows(p, reps) for s, p in zip(SPECS, passes)}


# --- statistics on known tables ------------------------------------------------------------------

def test_fisher_matches_the_textbook_tables():
    assert stats.fisher(3, 4, 1, 4) == pytest.approx(0.48571, abs=1e-5)   # the lady tasting tea
    assert stats.fisher(0, 5, 5, 5) == pytest.approx(2 / 252)               # all or nothing: 2 / C(10, 5)
    assert stats.fisher(7, 10, 7, 10) == pytest.approx(1.0)
    assert stats.fisher(3, 5, 0, 0) == 1.0                                  # nothing to compare with


def test_fisher_agrees_with_scipy_on_many_tables():
    import random

    from scipy.stats import fisher_exact

    rnd = random.Random(22)
    for _ in range(400):
        na, nb = rnd.randint(1, 60), rnd.randint(1, 450)
        xa, xb = rnd.randint(0, na), rnd.randint(0, nb)
        want = fisher_exact([[xa, na - xa], [xb, nb - xb]]).pvalue
        assert stats.fisher(xa, na, xb, nb) == pytest.approx(want, rel=1e-6, abs=1e-12), (xa, na, xb, nb)


def test_benjamini_hochberg_matches_the_hand_computed_and_scipy_values():
    ps = [0.01, 0.04, 0.03, 0.005]
    assert stats.bh(ps) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    rng = [0.001, 0.2, 0.049, 0.8, 0.012, 0.3, 0.04]
    assert stats.bh(rng) == pytest.approx(list(false_discovery_control(rng)))
    assert stats.bh([]) == []


def test_mcnemar_counts_only_discordant_pairs():
    assert stats.mcnemar_counts(0, 6).p == pytest.approx(2 / 64)
    assert stats.mcnemar_counts(0, 5).p == pytest.approx(2 / 32)   # 5 one-way flips can never reach 0.05


# --- the verdict rule ----------------------------------------------------------------------------

def test_the_first_campaign_of_a_series_has_nothing_to_compare_with(trend_home):
    cfg, ledger = trend_home
    ch = record_night(cfg, ledger, "n0", high((8, 8, 8)), night=0).change
    assert ch.verdict == "not comparable" and "first campaign of schedule:nightly" in ch.reason
    assert ch.counts == {"compute": [8, 10], "crud": [8, 10], "txn": [8, 10]}


def test_a_night_like_the_ones_before_is_no_change_and_a_collapse_is_regressed(trend_home):
    cfg, ledger = trend_home
    for n in range(4):
        record_night(cfg, ledger, f"n{n}", high((8, 8, 8)), night=n)
    same = record_night(cfg, ledger, "n4", high((8, 7, 9)), night=4).change
    assert same.verdict == "no change" and same.baseline_rule == "pooled"
    assert same.baseline == ["n3", "n2", "n1", "n0"]
    assert same.overall.test == "fisher" and same.overall.base_runs == 120 and same.overall.runs == 30
    bad = record_night(cfg, ledger, "n5", high((3, 4, 3)), night=5).change
    assert bad.verdict == "regressed"
    assert bad.overall.verdict == "regressed" and bad.overall.q <= 0.05 and bad.overall.diff < -0.3
    assert bad.reason.startswith("regressed: 10/30 = 33% vs 120/150 = 80%")
    assert bad.previous is not None and bad.previous.base_runs == 30  # the numbers against last night alone


def test_a_better_night_is_improved(trend_home):
    cfg, ledger = trend_home
    for n in range(3):
        record_night(cfg, ledger, f"n{n}", high((4, 5, 4)), night=n)
    assert record_night(cfg, ledger, "n3", high((10, 10, 9)), night=3).change.verdict == "improved"


def test_a_change_starts_a_new_level_the_next_nights_are_compared_with(trend_home):
    cfg, ledger = trend_home
    for n in range(3):
        record_night(cfg, ledger, f"n{n}", high((9, 9, 9)), night=n)
    assert record_night(cfg, ledger, "n3", high((3, 3, 3)), night=3).change.verdict == "regressed"
    after = record_night(cfg, ledger, "n4", high((3, 4, 3)), night=4).change
    assert after.baseline == [] and after.verdict == "no change" and after.overall is None
    assert "not tested" in after.reason and "trend.settle" in after.reason   # the flagged night is no baseline
    assert after.previous is not None and after.previous.base_passes == 9   # last night's numbers all the same
    settled = record_night(cfg, ledger, "n5", high((4, 3, 3)), night=5).change
    assert settled.baseline == ["n4"] and settled.verdict == "no change"   # the old level is not held against it
    assert settled.overall.base_runs == 30 and settled.overall.runs == 30


def test_the_pool_is_capped_and_stops_at_another_suite_hash(trend_home):
    cfg, ledger = trend_home
    cfg.trend.pool = 3
    record_night(cfg, ledger, "old", high((8, 8, 8)), night=0, suite_hash="sha256:old")
    first = record_night(cfg, ledger, "v2-0", high((8, 8, 8)), night=1).change
    assert first.verdict == "not comparable" and "suite hash differs" in first.reason and "old" in first.reason
    for n in range(2, 7):
        record_night(cfg, ledger, f"v2-{n - 1}", high((8, 8, 8)), night=n)
    ch = record_night(cfg, ledger, "v2-6", high((8, 8, 8)), night=7).change
    assert ch.baseline == ["v2-5", "v2-4", "v2-3"]


def test_matching_seeds_are_paired_with_mcnemar_and_fresh_seeds_are_not(trend_home):
    cfg, ledger = trend_home
    record_night(cfg, ledger, "a", high((8, 8, 8)), night=0, seed=0)
    paired = record_night(cfg, ledger, "b", high((8, 8, 8)), night=1, seed=0).change
    assert paired.overall.test == "mcnemar" and (paired.overall.b, paired.overall.c) == (0, 0)
    assert paired.overall.p == 1.0 and paired.verdict == "no change"
    fresh = record_night(cfg, ledger, "c", high((8, 8, 8)), night=2, seed=5000).change
    assert fresh.overall.test == "fisher"


def test_a_pinned_baseline_is_used_until_cleared_and_a_pinned_other_adapter_is_not_comparable(trend_home):
    cfg, ledger = trend_home
    record_night(cfg, ledger, "good", high((9, 9, 9)), night=0)
    for n in range(1, 4):
        record_night(cfg, ledger, f"n{n}", high((6, 6, 6)), night=n)
    save_pins(cfg.ledger_dir, {"mlx (sim)": "good"})
    ch = record_night(cfg, ledger, "n4", high((6, 6, 6)), night=4).change
    assert ch.baseline_rule == "pinned" and ch.baseline == ["good"] and ch.verdict == "regressed"
    record_night(cfg, ledger, "real", high((9, 9, 9)), night=5, adapter="goose", schedule=None)
    save_pins(cfg.ledger_dir, {"mlx (sim)": "real"})
    odd = record_night(cfg, ledger, "n6", high((6, 6, 6)), night=6).change
    assert odd.verdict == "not comparable" and "adapter differs" in odd.reason


def test_a_small_drop_sustained_over_three_nights_is_caught_by_the_window(trend_home):
    cfg, ledger = trend_home
    for n in range(10):
        record_night(cfg, ledger, f"n{n}", high((8, 8, 8)), night=n)  # 240/300
    verdicts = [record_night(cfg, ledger, f"d{n}", high((6, 6, 6)), night=10 + n).change for n in range(3)]
    assert verdicts[0].verdict == "no change"            # one night of 18/30 against 80 %: p = 0.019, times 3 windows
    assert verdicts[1].verdict == "regressed"            # two nights of it: 36/60 against 240/300
    assert verdicts[1].overall.nights == 2 and [t.nights for t in verdicts[1].windows] == [1, 2, 3]
    assert verdicts[2].baseline == [] and "not tested" in verdicts[2].reason       # the night after the flag


def test_one_spec_collapsing_is_a_regression_even_when_the_whole_barely_moves(trend_home):
    cfg, ledger = trend_home
    for n in range(6):
        record_night(cfg, ledger, f"n{n}", high((7, 10, 10)), night=n)
    ch = record_night(cfg, ledger, "n6", high((0, 10, 10)), night=6).change
    crud = next(t for t in ch.specs if t.spec == "crud")
    assert crud.verdict == "regressed" and crud.q <= cfg.trend.spec_alpha
    assert ch.verdict == "regressed" and "crud regressed" in ch.reason


def test_other_arms_of_the_same_night_share_the_fdr_family(trend_home):
    cfg, ledger = trend_home
    for n in range(3):
        record_night(cfg, ledger, f"m{n}", high((8, 8, 8)), night=n)
        record_night(cfg, ledger, f"g{n}", high((4, 4, 4)), night=n, variant="gguf", schedule="nightly-gguf")
    record_night(cfg, ledger, "g3", high((4, 5, 4)), night=3, variant="gguf", schedule="nightly-gguf")
    ch = record_night(cfg, ledger, "m3", high((8, 8, 7)), night=3).change
    assert ch.family == 6  # its 3 specs and gguf's 3 of the same night; earlier nights are not in it
    assert all(t.q >= t.p for t in ch.specs)


def test_infra_runs_count_in_no_rate_and_a_night_of_only_infra_is_not_comparable(trend_home):
    cfg, ledger = trend_home
    record_night(cfg, ledger, "n0", high((8, 8, 8)), night=0)
    ch = record_night(cfg, ledger, "n1", high((8, 8, 8)), night=1, infra=3).change
    assert ch.overall.runs == 27
    dead = record_night(cfg, ledger, "n2", {"crud": rows(0, 2)}, night=2, infra=2).change
    assert dead.verdict == "not comparable" and "all infra" in dead.reason


def test_the_change_record_documents_every_field():
    for model in (ChangeTest, CampaignChange):
        schema = model.model_json_schema()
        assert all(p.get("description") for p in schema["properties"].values()), model.__name__


def test_a_campaign_that_replays_a_baseline_campaigns_units_is_not_tested_and_repeats_in_the_pool_count_once(trend_home):
    """Evidence counts once: on a swarm that replays seeds, the same seeds and build are the same runs."""
    cfg, ledger = trend_home
    record_night(cfg, ledger, "n0", high((8, 8, 8)), night=0, seed=0, replays=True)
    again = record_night(cfg, ledger, "n1", high((8, 8, 8)), night=1, seed=0, replays=True).change
    assert again.verdict == "no change" and "it replays n0" in again.reason and again.overall is None
    new = record_night(cfg, ledger, "n2", high((3, 3, 3)), night=2, seed=2000, replays=True).change
    assert new.folded == ["n0"] and new.baseline == ["n1"]
    assert new.overall.base_runs == 30 and new.verdict == "regressed"   # n1's runs only, not n0's again
    record_night(cfg, ledger, "g0", high((8, 8, 8)), night=0, seed=0, schedule="goose", adapter="goose")
    real = record_night(cfg, ledger, "g1", high((8, 8, 8)), night=1, seed=0, schedule="goose", adapter="goose").change
    assert "replays" not in real.reason and real.overall is not None   # real goose: the same seeds are new draws
