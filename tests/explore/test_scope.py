"""The tweaker's scope guard: nothing outside the allowed swarm knobs ever gets through."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from swarmgym.config import load_config
from swarmgym.explore.scope import guard
from swarmgym.explore.tweaker import KnobChange, Proposal, apply

ALLOWED_EXACT = {"planner_model", "worker_max_turns", "max_attempts",
                 "env.GOOSE_LOCAL_CONTEXT_CAP", "env.GOOSE_MAX_BACKGROUND_TASKS"}
values = st.one_of(st.none(), st.booleans(), st.integers(-10**9, 10**9), st.floats(allow_nan=True),
                   st.text(max_size=30), st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))
near_misses = st.sampled_from(["env.PATH", "env.LD_PRELOAD", "env.ANTHROPIC_API_KEY", "env.GOOSE_SWARM_JUDGE",
                               "planner_model_x", "Planner_model", "max_attempts ", " pool.a.weight", "pools.a.weight",
                               "swarm.binary", "checks.timeout", "brain.provider", "home", "env", "env.",
                               "secrets", "pool", "poolx.a.weight", "core.anything", "env.goose_local_context_cap",
                               "GOOSE_MAX_BACKGROUND_TASKS", "env.GOOSE_LOCAL_CONTEXT_CAP.x"])


@given(key=st.one_of(st.text(max_size=40), near_misses), value=values)
def test_every_key_outside_the_allowed_prefixes_is_rejected(key, value):
    d = guard(key, value)
    if not (key.startswith("pool.") or key in ALLOWED_EXACT):
        assert not d.allowed
        assert "scope" in d.reason


@given(dev=st.text(max_size=20), field=st.text(max_size=10), value=values)
def test_pool_knobs_only_take_weight_or_enabled_with_sane_values(dev, field, value):
    d = guard(f"pool.{dev}.{field}", value)
    if d.allowed:
        assert field in ("weight", "enabled") and dev and not dev.startswith("-")
        if field == "weight":  # goose's weight: an integer cap >= 1 on tasks in flight
            assert isinstance(value, (int, float, str)) and not isinstance(value, bool)
            assert isinstance(d.value, int) and d.value >= 1 and d.value == float(value)
        else:
            assert isinstance(value, bool)


@given(key=st.sampled_from(["env.GOOSE_LOCAL_CONTEXT_CAP", "env.GOOSE_MAX_BACKGROUND_TASKS",
                            "worker_max_turns", "max_attempts"]), value=values)
def test_int_knobs_take_only_positive_integers(key, value):
    d = guard(key, value)
    if d.allowed:
        assert isinstance(d.value, int) and not isinstance(d.value, bool) and d.value > 0


def test_a_pool_weight_is_an_integer_of_at_least_one_as_goose_takes_it():
    assert guard("pool.a.weight", 3.0).value == 3
    for bad in (2.5, 0, -1, 0.0, float("nan"), True):
        d = guard("pool.a.weight", bad)
        assert not d.allowed and "integer >= 1" in d.reason


def test_allowed_knobs_are_accepted_and_classified():
    assert guard("pool.gpu-box.weight", 2).how == "pool"
    assert guard("pool.mac.studio.enabled", False).how == "pool"  # device ids may hold dots
    assert guard("env.GOOSE_MAX_BACKGROUND_TASKS", "4").value == 4
    assert guard("planner_model", "qwen3-coder-30b").how == "manual"
    assert not guard("pool.--help.weight", 1).allowed


@given(key=st.one_of(st.text(max_size=30), near_misses), value=values)
def test_apply_records_every_out_of_scope_change_as_rejected_and_runs_nothing(tmp_path_factory, key, value):
    if key.startswith("pool.") or key in ALLOWED_EXACT:
        return
    cfg = load_config(tmp_path_factory.getbasetemp(), environ={})
    out = apply(Proposal(changes=[KnobChange(key=key, value=value)]), cfg, tmp_path_factory.getbasetemp(),
                adapter="sim")
    assert out["commands"] == [] and out["applied"] == [] and out["env_overrides"] == {}
    assert [r["key"] for r in out["rejected"]] == [key]
