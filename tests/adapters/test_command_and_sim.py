"""The command adapter (argv template, no shell) and the sim adapter (isolated goose root)."""
from __future__ import annotations

import json
import sys

from swarmgym.adapters import get_adapter
from swarmgym.collect import collect
from swarmgym.collect.goose_paths import job_root, sessions_db
from swarmgym.config import load_config
from tests.support.simrun import suite


def test_command_adapter_passes_the_prompt_as_one_argument_without_a_shell(tmp_path):
    script = tmp_path / "tool.py"
    script.write_text("import json, sys\nopen('argv.json', 'w').write(json.dumps(sys.argv[1:]))\n"
                      "print(json.dumps({'done': ['t1'], 'tasks': [{'task_id': 't1', 'status': 'done'}]}))\n")
    argv = [sys.executable, str(script), "--ask", "{prompt}"]
    cfg = load_config(tmp_path, environ={}, overrides={"swarm.command": argv})
    prompt = "build it; rm -rf / $(echo pwned) `id`"
    out = get_adapter("command", cfg).run(prompt, tmp_path / "ws")
    assert json.loads((tmp_path / "ws" / "argv.json").read_text()) == ["--ask", prompt]
    assert out.exit_code == 0 and out.report.done == ["t1"] and out.report_source == "stdout"
    assert out.has_fleet_log is False
    ev = collect(tmp_path / "ws", out, cfg)
    assert not any(p.startswith("events:") for p in ev.problems)  # no fleet log is expected from it


def test_sim_adapter_keeps_goose_state_in_a_per_job_root_not_the_users_or_the_homes(tmp_path, monkeypatch):
    real = tmp_path / "real-goose"
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(real))  # the user's own goose dir must stay untouched
    cfg = load_config(tmp_path / "home", environ={})
    (tmp_path / "home").mkdir(exist_ok=True)
    out = get_adapter("sim", cfg).run(suite().spec("compute").prompt, tmp_path / "ws",
                                      env={"SWARMGYM_SIM_TIME_SCALE": "0", "SWARMGYM_SIM_FORCE": "reference"})
    assert out.exit_code == 0 and out.adapter == "sim"
    expected = sessions_db({"GOOSE_PATH_ROOT": str(job_root(tmp_path / "ws"))})
    assert out.sessions_db == str(expected) and expected.is_file()
    assert not real.exists() and not (tmp_path / "home" / ".sim-goose" / "data").exists()
    ev = collect(tmp_path / "ws", out, cfg)
    assert ev.traces and all(t.found for t in ev.traces.values())


def test_a_goose_root_the_caller_sets_is_the_pristine_config_each_job_copies(tmp_path):
    mine = tmp_path / "mine"
    (mine / "config").mkdir(parents=True)
    (mine / "config" / "config.yaml").write_text("GOOSE_PROVIDER: lmstudio\n")
    cfg = load_config(tmp_path, environ={}, overrides={"swarm.env": {"GOOSE_PATH_ROOT": str(mine)}})
    out = get_adapter("sim", cfg).run(suite().specs[0].prompt, tmp_path / "ws",
                                      env={"SWARMGYM_SIM_TIME_SCALE": "0", "SWARMGYM_SIM_FORCE": "reference"})
    root = job_root(tmp_path / "ws")
    assert out.sessions_db == str(sessions_db({"GOOSE_PATH_ROOT": str(root)}))
    assert (root / "data" / "sessions" / "sessions.db").is_file()
    assert not (root / "config").exists()  # the copy (it may hold goose's secrets) is gone after the run
    assert sorted(p.name for p in mine.rglob("*")) == ["config", "config.yaml"]  # nothing written to the original


def test_sim_hang_is_killed_on_the_simulated_clock_not_after_the_real_swarm_timeout(tmp_path, monkeypatch):
    import time

    from swarmgym.adapters import sim

    monkeypatch.setattr(sim, "START_GRACE_SECS", 4.0)
    cfg = load_config(tmp_path, environ={}, overrides={"swarm.timeout": 3600})
    t0 = time.monotonic()
    out = get_adapter("sim", cfg).run(suite().specs[0].prompt, tmp_path / "ws",
                                      env={"SWARMGYM_SIM_TIME_SCALE": "0.01", "SWARMGYM_SIM_FORCE": "hang"})
    took = time.monotonic() - t0
    # 3600 s of swarm time is 60 simulated minutes = 0.6 real seconds at 0.01 s/min, plus the grace
    assert out.timed_out and out.exit_code == 124
    assert took < 60, f"the hang ran {took:.0f}s of a 3600s timeout"
