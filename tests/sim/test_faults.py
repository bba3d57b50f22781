"""Fault rates: variants differ, flags and knobs move them, draws are paired across settings."""
from __future__ import annotations

import pytest

from swarmgym.sim.faults import draw_faults, parse_force, rates_for, resolve
from swarmgym.sim.fleet import load_fleet
from tests.support.simrun import suite

FLEET = load_fleet({})


def _functional_failures(variant: str, env: dict[str, str], seeds=range(5)) -> int:
    """How many runs of a medium tier (3 specs x 5 reps) build a broken app."""
    rates = rates_for(FLEET, variant, env)
    return sum(resolve(draw_faults(str(seed), spec.prompt, rates))[0] is not None
               for seed in seeds for spec in suite().specs)


@pytest.mark.slow  # draws thousands of simulated runs
def test_gguf_breaks_more_apps_than_mlx():
    assert _functional_failures("gguf", {}, range(20)) > _functional_failures("mlx", {}, range(20)) + 10


@pytest.mark.slow  # draws thousands of simulated runs
def test_review_flag_measurably_moves_the_gguf_pass_rate():
    # 20 seeds x 3 specs = 4 medium tiers: a single 15-run tier is too few draws to promise a move
    # (on bench-v1, seeds 0-4 happen to move only 9 -> 8 broken builds; seeds 0-19 move 43 -> 24).
    off = _functional_failures("gguf", {}, range(20))
    on = _functional_failures("gguf", {"GOOSE_SWARM_REVIEW": "1"}, range(20))
    assert off - on >= 12  # at least 20 points of the pass rate


def test_lowering_a_rate_only_removes_that_fault_from_runs():
    base = rates_for(FLEET, "gguf", {})
    smoke = rates_for(FLEET, "gguf", {"GOOSE_SWARM_SMOKE": "on"})
    assert smoke.faults["crash"] < base.faults["crash"]
    for seed in range(40):
        before, after = draw_faults(str(seed), "p", base), draw_faults(str(seed), "p", smoke)
        assert after <= before


def test_knobs_and_default_on_flags_change_rates():
    base = rates_for(FLEET, "mlx", {})
    assert rates_for(FLEET, "mlx", {"GOOSE_LOCAL_CONTEXT_CAP": "4096"}).faults["stub"] > base.faults["stub"]
    assert rates_for(FLEET, "mlx", {"GOOSE_LOCAL_CONTEXT_CAP": "32768"}).faults == base.faults
    assert rates_for(FLEET, "mlx", {"GOOSE_MAX_BACKGROUND_TASKS": "8"}).faults["hang"] > base.faults["hang"]
    assert rates_for(FLEET, "mlx", {"GOOSE_SWARM_PREREVIEW": "0"}).faults["liar"] > base.faults["liar"]
    assert rates_for(FLEET, "mlx", {}, hard=True).faults["liar"] > base.faults["liar"]


def test_force_override_parses_kinds_and_reference_means_none():
    assert parse_force("liar, starved") == {"liar", "starved"}
    assert parse_force("reference") == set()
    assert parse_force(None) is None
