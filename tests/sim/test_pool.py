"""`swarmgym-sim swarm pool …`: pool changes persist and steer later runs."""
from __future__ import annotations

import json

from tests.fixtures.simrun import run_goose, sim_cli, suite

PROMPT = suite().specs[0].prompt


def test_weight_zero_starves_that_device_in_the_next_run(tmp_path):
    res = sim_cli(tmp_path, "swarm", "pool", "weight", "mlx-mini", "0")
    assert res.returncode == 0 and "mlx-mini: weight 0" in res.stdout
    run = run_goose(tmp_path, PROMPT, SWARMGYM_SIM_FORCE="reference")
    started = next(e for e in run.evidence.events if e["event"] == "run_started")
    assert {d["id"]: d["weight"] for d in started["pool"]}["mlx-mini"] == 0
    dispatched = [e["device"] for e in run.evidence.events if e["event"] == "task_dispatched"]
    assert "mlx-mini" not in dispatched and len(set(dispatched)) == 3
    assert run.evidence.report.dispatched_per_device["mlx-mini"] == 0


def test_disable_and_enable_round_trip_through_pool_show(tmp_path):
    assert sim_cli(tmp_path, "swarm", "pool", "disable", "gguf-box").returncode == 0
    shown = json.loads(sim_cli(tmp_path, "swarm", "pool", "show", "--json").stdout)
    assert {d["id"]: d["enabled"] for d in shown}["gguf-box"] is False
    run = run_goose(tmp_path, PROMPT, SWARMGYM_SIM_FORCE="reference")
    assert "gguf-box" not in run.evidence.report.dispatched_per_device
    assert "gguf-box" not in {p.id for p in run.evidence.pool}  # goose lists enabled devices only
    assert sim_cli(tmp_path, "swarm", "pool", "enable", "gguf-box").returncode == 0
    text = sim_cli(tmp_path, "swarm", "pool", "show").stdout
    assert any(line.startswith("gguf-box") and " true " in line for line in text.splitlines())


def test_pool_state_lives_in_sim_pool_json_or_where_swarmgym_sim_pool_says(tmp_path):
    sim_cli(tmp_path, "swarm", "pool", "weight", "mlx-studio", "3")
    state = json.loads((tmp_path / "goose" / "config" / "sim-pool.json").read_text())
    assert state["devices"]["mlx-studio"]["weight"] == 3
    other = tmp_path / "elsewhere.json"
    sim_cli(tmp_path, "swarm", "pool", "weight", "mlx-studio", "5", SWARMGYM_SIM_POOL=str(other))
    assert json.loads(other.read_text())["devices"]["mlx-studio"]["weight"] == 5


def test_bad_pool_commands_fail_with_one_line(tmp_path):
    res = sim_cli(tmp_path, "swarm", "pool", "weight", "no-such-box", "1")
    assert res.returncode == 2
    assert res.stderr.strip() == ("swarmgym-sim: unknown device 'no-such-box'; known: mlx-studio, gguf-box, "
                                  "mlx-mini, mini-aux")
    res = sim_cli(tmp_path, "swarm", "pool", "weight", "mlx-mini", "lots")
    assert res.returncode == 2 and "WEIGHT must be a number of tasks" in res.stderr and "Traceback" not in res.stderr
