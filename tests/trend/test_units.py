"""Evidence counted once: units, folding of replayed runs, pairing on units (never on record order)."""
from __future__ import annotations

from swarmgym.trend.answer import pooled
from swarmgym.trend.units import Run, fold, pairs


def run(arm, spec, seed, ok, *, ts, replays=True, adapter="sim", overall=None, build="sim 1 · fleet ab"):
    return Run(arm=arm, adapter=adapter, build=build, suite_hash="h", spec=spec, seed=seed, hard=False,
               replays=replays, functional=ok, overall=overall or ("pass" if ok else "fail"), ts=ts)


def test_a_replayed_unit_counts_once_and_a_fresh_draw_counts_again():
    first = [run("A", "crud", 0, False, ts=1), run("A", "crud", 1, True, ts=2)]
    again = [run("A", "crud", 0, False, ts=3), run("A", "crud", 1, True, ts=4)]
    kept = fold(first + again)
    assert len(kept.runs) == 2 and kept.folded == {"A": 2}
    goose = fold([run("G", "crud", 0, False, ts=1, replays=False), run("G", "crud", 0, True, ts=2, replays=False)])
    assert len(goose.runs) == 2 and not goose.dropped
    other_build = fold([run("A", "crud", 0, False, ts=1), run("A", "crud", 0, True, ts=2, build="sim 2")])
    assert len(other_build.runs) == 2          # another build is another unit


def test_pairs_meet_on_spec_and_seed_whatever_order_the_runs_were_recorded_in():
    a = [run("A", "crud", 0, False, ts=1), run("A", "crud", 1, True, ts=2), run("A", "txn", 0, False, ts=3)]
    b = [run("B", "crud", 1, True, ts=10), run("B", "txn", 0, True, ts=11), run("B", "crud", 0, True, ts=12),
         run("B", "crud", 7, False, ts=13)]                       # seed 7: A never ran it, no pair
    assert sorted(pairs(a, b)) == sorted([(False, True), (True, True), (False, True)])
    assert pairs(a, [run("B", "crud", 0, True, ts=1, adapter="goose")]) == []   # never across adapters
    assert pairs(a, [run("B", "crud", 0, True, ts=1, overall="infra")]) == []   # no outcome, no pair


def test_repeating_both_arms_campaigns_does_not_move_the_pooled_p_value():
    a = [run("A", s, seed, False, ts=seed) for s in ("crud", "txn") for seed in range(3)]
    b = [run("B", s, seed, True, ts=seed) for s in ("crud", "txn") for seed in range(3)]
    once = pooled("A", "B", pairs(fold(a).runs, fold(b).runs))
    twice_a, twice_b = fold(a + [r for r in a]), fold(b + list(b))
    twice = pooled("A", "B", pairs(twice_a.runs, twice_b.runs))
    assert (once.p_value, once.pairs, once.b_only) == (twice.p_value, twice.pairs, twice.b_only) == (once.p_value, 6, 6)
    assert once.decision == "B" and twice_a.dropped and twice_b.dropped
