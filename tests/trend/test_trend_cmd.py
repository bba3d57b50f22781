"""``swarmgym trend`` and ``swarmgym baseline`` as a user runs them (issue #22)."""
from __future__ import annotations

import json

import pytest

from tests.support.trend import DAY, T0, record_night, rows, swarmgym

SPECS = ("crud", "compute", "txn")


@pytest.fixture
def history(trend_home):
    """mlx: 6 nights on build 1.4 at 80 %, then 2 on build 1.5 at 30 %; gguf: 2 nights."""
    cfg, ledger = trend_home
    for n in range(8):
        record_night(cfg, ledger, f"sched-nightly-{n}", {s: rows(8 if n < 6 else 3, 10) for s in SPECS}, night=n,
                     binary_version="swarm 1.4" if n < 6 else "swarm 1.5")
    for n in range(2):
        record_night(cfg, ledger, f"sched-gguf-{n}", {s: rows(4, 10) for s in SPECS}, night=n, variant="gguf",
                     schedule="nightly-gguf")
    return cfg.home


def test_trend_json_lists_each_arms_campaigns_in_time_order_with_build_interval_and_verdict(history):
    r = swarmgym(history, "trend", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    arms = {a["arm"]: a["campaigns"] for a in doc["arms"]}
    assert set(arms) == {"mlx (sim)", "gguf (sim)"}
    mlx = arms["mlx (sim)"]
    assert [c["campaign_id"] for c in mlx] == [f"sched-nightly-{n}" for n in range(8)]
    assert [c["build"] for c in mlx] == ["swarm 1.4"] * 6 + ["swarm 1.5"] * 2
    first = mlx[0]
    assert (first["passes"], first["runs"], first["rate"]) == (24, 30, 0.8)
    assert first["wilson95"] == pytest.approx([0.6269, 0.9049], abs=1e-4)
    assert first["suite_hash"] == "sha256:aaaa" and first["verdict"] == "not comparable"
    assert mlx[6]["verdict"] == "regressed" and mlx[6]["reason"].startswith("regressed: 9/30 = 30%")
    assert "specs" not in first
    with_specs = json.loads(swarmgym(history, "trend", "--json", "--spec", "--arm", "mlx (sim)").stdout)
    assert [a["arm"] for a in with_specs["arms"]] == ["mlx (sim)"]
    assert with_specs["arms"][0]["campaigns"][0]["specs"]["crud"]["passes"] == 8


def test_trend_since_keeps_the_recent_campaigns(history):
    since = T0 + 5.5 * DAY
    from datetime import datetime, timezone

    day = datetime.fromtimestamp(since, timezone.utc).isoformat()
    doc = json.loads(swarmgym(history, "trend", "--json", "--arm", "mlx (sim)", "--since", day).stdout)
    assert [c["campaign_id"] for c in doc["arms"][0]["campaigns"]] == ["sched-nightly-6", "sched-nightly-7"]


def test_trend_prints_a_table_per_arm(history):
    r = swarmgym(history, "trend", "--arm", "mlx (sim)")
    assert r.returncode == 0, r.stderr
    assert "mlx (sim): 8 campaign(s)" in r.stdout and "swarm 1.5" in r.stdout and "regressed" in r.stdout
    assert "24/30 = 80% [63–90]" in r.stdout


@pytest.mark.parametrize("args,needle", [
    (("--arm", "cuda (sim)"), "--arm 'cuda (sim)': no such arm in the ledger; known: gguf (sim), mlx (sim)"),
    (("--since", "yesterday"), "--since 'yesterday': expected a span such as 30d"),
])
def test_trend_bad_input_is_one_line_and_exit_2(history, args, needle):
    r = swarmgym(history, "trend", *args)
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr


def test_baseline_set_show_clear_pins_what_the_next_campaign_is_compared_with(history, trend_home):
    cfg, ledger = trend_home
    r = swarmgym(history, "baseline", "set", "mlx (sim)", "sched-nightly-2")
    assert r.returncode == 0, r.stderr
    assert "mlx (sim): baseline pinned to sched-nightly-2: 24/30 functional, build swarm 1.4" in r.stdout
    assert json.loads(swarmgym(history, "baseline", "show", "--json").stdout) == {"mlx (sim)": "sched-nightly-2"}
    ch = record_night(cfg, ledger, "sched-nightly-8", {s: rows(3, 10) for s in SPECS}, night=8).change
    assert ch.baseline_rule == "pinned" and ch.baseline == ["sched-nightly-2"] and ch.verdict == "regressed"
    assert swarmgym(history, "baseline", "clear", "mlx (sim)").returncode == 0
    assert "no pinned baseline" in swarmgym(history, "baseline", "show").stdout
    after = record_night(cfg, ledger, "sched-nightly-9", {s: rows(3, 10) for s in SPECS}, night=9).change
    assert after.baseline_rule == "pooled"


@pytest.mark.parametrize("args,needle", [
    (("set", "cuda (sim)", "sched-nightly-2"), "ARM 'cuda (sim)': no such arm in the ledger"),
    (("set", "mlx (sim)", "no-such-campaign"), "baseline 'no-such-campaign': no run of that campaign in the ledger"),
    (("clear", "mlx (sim)"), "ARM 'mlx (sim)': no pinned baseline"),
])
def test_baseline_bad_input_is_one_line_and_exit_2(history, args, needle):
    r = swarmgym(history, "baseline", *args)
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr
