"""`swarmgym-sim swarm pool …`: pool changes persist and steer later runs."""
from __future__ import annotations

import json

import pytest

from tests.support.simrun import run_goose, sim_cli, suite

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


@pytest.mark.slow  # simulator runs and a bench: more than a few seconds
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


@pytest.mark.slow  # simulator runs and a bench: more than a few seconds
def test_pool_knob_set_from_a_shell_steers_the_next_bench(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys
    from pathlib import Path

    from swarmgym.adapters import get_adapter, sim_command
    from swarmgym.config import load_config
    from swarmgym.sim.fleet import pool_path

    home, user = tmp_path / "home", tmp_path / "user"  # the user's HOME: goose's config dir lives under it
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "GOOSE_", "XDG_"))}
    env.update(HOME=str(user), SWARMGYM_SIM_TIME_SCALE="0", COLUMNS="200")
    shell = subprocess.run([*sim_command(), "swarm", "pool", "disable", "gguf-box"], cwd=home, env=env,
                           capture_output=True, text=True, timeout=60)
    assert shell.returncode == 0, shell.stderr
    written = user / ".config" / "goose" / "sim-pool.json"
    assert json.loads(written.read_text())["devices"]["gguf-box"]["enabled"] is False
    for k in [k for k in os.environ if k.startswith(("SWARMGYM_", "GOOSE_", "XDG_"))]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("HOME", str(user))
    bench_env = get_adapter("sim", load_config(home, environ={})).env({})
    assert pool_path(bench_env) == written  # one function, one file
    assert bench_env["GOOSE_PATH_ROOT"] == str(home / ".sim-goose")  # sessions still stay in the home
    exe = Path(sys.executable).parent / "swarmgym"
    res = subprocess.run([str(exe), "bench", "--tier", "smoke", "--variant", "mlx", "--swarm", "sim"], cwd=home,
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = [json.loads(x) for x in (home / "ledger" / "sessions.jsonl").read_text().splitlines() if x.strip()]
    (rec,) = [x for x in lines if x["kind"] == "session"]  # the bench also writes its campaign's record
    assert rec["per_device"] and not rec["per_device"].get("gguf-box")
