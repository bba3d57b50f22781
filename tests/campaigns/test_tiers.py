"""Tiers scale with the suite: every spec equally often, interleaved; three-spec suites keep the seed's tiers."""
from __future__ import annotations

from collections import Counter

import pytest
import yaml

from swarmgym.campaigns.plan import plan_jobs, tier_shape
from swarmgym.core.errors import UsageError
from swarmgym.suitekit.suite import load_suite


@pytest.mark.parametrize("tier, shape", [("smoke", (1, 1)), ("light", (3, 1)), ("medium", (3, 5)),
                                         ("high", (3, 10)), ("extreme", (3, 10))])
def test_a_three_spec_suite_keeps_the_seed_tiers(tier, shape):
    assert tier_shape(tier, 3) == shape


def _nine_spec_suite(tmp_path):
    specs = [{"id": f"s{i}", "app_slug": f"app{i}", "prompt": "p", "hard_prompt": "hp",
              "checks": [{"name": "c", "kind": "file_exists", "path": "x"}]} for i in range(9)]
    (tmp_path / "nine").mkdir()
    (tmp_path / "nine" / "suite.yaml").write_text(yaml.safe_dump({"name": "nine", "specs": specs}))
    return load_suite(tmp_path / "nine")


@pytest.mark.parametrize("tier, runs", [("smoke", 1), ("light", 9), ("medium", 18), ("high", 36), ("extreme", 36)])
def test_a_nine_spec_suite_plans_at_least_the_tier_runs_with_every_spec_equally_often(tmp_path, tier, runs):
    jobs = plan_jobs(_nine_spec_suite(tmp_path), tier, "mlx")
    assert len(jobs) == runs
    per_spec = Counter(j.spec for j in jobs)
    assert len(set(per_spec.values())) == 1
    if tier != "smoke":
        assert [j.spec for j in jobs[:10]] == [f"s{i}" for i in range(9)] + ["s0"][: len(jobs) - 9]
    assert all(j.hard for j in jobs) == (tier == "extreme")


def test_bench_v1_and_v2_plan_the_seed_tiers():
    for name in ("bench-v1", "bench-v2"):
        assert len(plan_jobs(load_suite(name), "high", "mlx")) == 30
        assert len(plan_jobs(load_suite(name), "medium", "mlx")) == 15


def test_an_unknown_tier_is_a_usage_error_naming_the_choices():
    with pytest.raises(UsageError, match="--tier: expected one of smoke, light, medium, high, extreme, got 'huge'"):
        tier_shape("huge", 9)
