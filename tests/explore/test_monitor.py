"""The monitor flags starved, idle and underused devices against their weighted fair share."""
from __future__ import annotations

from swarmgym.explore.monitor import monitor, monitor_session
from swarmgym.explore.tweaker import rule_proposal
from swarmgym.models import PoolDevice, Turn


def pool(**weights):
    return [PoolDevice(id=k, weight=w) for k, w in weights.items()]


def test_balanced_fleet_has_no_findings():
    rep = monitor({"a": 5, "b": 5}, pool(a=1, b=1))
    assert not rep.unbalanced and rep.findings == [] and rep.line() == "balanced"


def test_starved_idle_and_underused_are_told_apart_by_weighted_share():
    # 200 tasks, equal weights -> fair share 50 each
    rep = monitor({"a": 0, "b": 2, "c": 20, "d": 178}, pool(a=1, b=1, c=1, d=1))
    assert rep.starved == ["a"] and rep.idle == ["b"] and rep.underused == ["c"]
    assert rep.unbalanced and "starved: a" in rep.line()
    assert any("fair share 50" in f.message and f.hint for f in rep.findings)


def test_weight_decides_fair_share():
    rep = monitor({"big": 9, "small": 1}, pool(big=9, small=1))
    assert not rep.unbalanced


def test_session_totals_all_turns_and_keeps_a_device_starved_in_any_turn():
    t1 = Turn(n=1, per_device={"a": 7, "b": 0}, pool=pool(a=1, b=0))
    t2 = Turn(n=2, per_device={"a": 3, "b": 3}, pool=pool(a=1, b=1))
    rep = monitor_session([t1, t2])
    assert rep.per_device == {"a": 10, "b": 3} and rep.starved == ["b"] and rep.unbalanced
    assert rep.findings[0].message.startswith("turn 1: device b is starved")
    assert not monitor_session([t2]).unbalanced


def test_rule_raises_a_starved_devices_weight_and_enables_a_disabled_one():
    p = [PoolDevice(id="a", weight=2), PoolDevice(id="b", weight=0), PoolDevice(id="c", weight=1, enabled=True)]
    rep = monitor({"a": 8, "b": 0, "c": 4}, p)
    prop = rule_proposal(rep, p)
    assert {c.key: c.value for c in prop.changes} == {"pool.b.weight": 2}
    assert "b was starved" in prop.rationale
    assert rule_proposal(monitor({"a": 5}, pool(a=1)), pool(a=1)) is None


def test_the_rule_never_proposes_a_fractional_weight_goose_would_reject():
    p = [PoolDevice(id="a", weight=2.5), PoolDevice(id="b", weight=1.5)]
    prop = rule_proposal(monitor({"a": 9, "b": 0}, p), p)
    weights = [c.value for c in prop.changes if c.key.endswith(".weight")]
    assert weights == [2] and all(isinstance(w, int) for w in weights)
