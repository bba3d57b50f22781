"""The simulator asks its planner for real where goose's config names an endpoint — through the box's forwarder,
streamed, with the key added on the host — and calls nothing where it names none."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from swarmgym.sim.planner import ask_planner, completions_path
from swarmgym.testing.modelserver import ModelServer
from tests.support.hostile import require_bwrap


def test_the_planner_url_is_under_the_endpoint_with_or_without_v1():
    assert completions_path("http://127.0.0.1:1234") == ("http://127.0.0.1:1234", "/v1/chat/completions")
    assert completions_path("http://studio:1234/v1/") == ("http://studio:1234", "/v1/chat/completions")


def test_the_planner_reply_is_read_as_it_streams_with_goose_s_key_as_a_bearer_token():
    with ModelServer(["plan ", "three ", "tasks"]) as server:
        reply = ask_planner(server.url, "qwen3", "build calc", {"LMSTUDIO_API_KEY": "lm-key"})
        assert (reply.text, reply.chunks) == ("plan three tasks", 3)
        assert server.requests[0]["headers"]["authorization"] == "Bearer lm-key"
        assert server.requests[0]["json"]["stream"] is True


def sim_home(tmp_path, endpoint: str | None):
    home = tmp_path / "home"
    (home / ".sim-goose" / "config").mkdir(parents=True)
    if endpoint:  # the simulator's pristine goose config, as goose keeps its pool
        (home / ".sim-goose" / "config" / "config.yaml").write_text(yaml.safe_dump({"swarm": {"endpoint": endpoint}}))
    (home / "config.yaml").write_text(yaml.safe_dump({"sandbox": {"backend": "bwrap"}, "checks": {"timeout": 60}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "GOOSE_", "LMSTUDIO_"))}
    return home, {**env, "SWARMGYM_HOME": str(home), "SWARMGYM_SIM_TIME_SCALE": "0", "SWARMGYM_SIM_SEED": "7"}


def bench(home, env) -> dict:
    res = subprocess.run([sys.executable, "-m", "swarmgym", "bench", "--tier", "smoke", "--variant", "mlx",
                          "--swarm", "sim", "--suite", "bench-v1"], env=env, cwd=home.parent, capture_output=True,
                         text=True, timeout=600, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    return json.loads(next((home / "runs").glob("*/session.json")).read_text())["turns"][0]


@pytest.mark.slow
def test_a_simulated_job_streams_its_planner_call_through_the_forwarder_with_the_key_added_on_the_host(tmp_path):
    require_bwrap()
    with ModelServer(interval=0.01) as server:
        home, env = sim_home(tmp_path, f"http://localhost:{server.port}")
        turn = bench(home, {**env, "LMSTUDIO_API_KEY": "lm-host-only"})
        [chat] = server.requests
        assert chat["headers"]["authorization"] == "Bearer lm-host-only"
    run = turn["run"]
    assert f"at http://localhost:{server.port}: 8 chunks streamed" in run["stderr_tail"]
    assert run["network"]["endpoints"] == [f"http://localhost:{server.port}"]
    assert run["network"]["bytes_received"] > 1000 and run["network"]["connections"] == 1
    assert turn["verdict"]["dimensions"]["swarm"]["status"] == "pass"


@pytest.mark.slow
def test_a_simulated_job_whose_planner_endpoint_is_down_fails_as_goose_would(tmp_path):
    require_bwrap()
    from swarmgym.testing.localredis import free_port

    home, env = sim_home(tmp_path, f"http://127.0.0.1:{free_port()}")
    turn = bench(home, env)
    assert "planner" in turn["run"]["stderr_tail"] and "failed" in turn["run"]["stderr_tail"]
    assert turn["run"]["network"]["failed"] == 1
    assert turn["verdict"]["dimensions"]["swarm"]["status"] == "fail"


@pytest.mark.slow
def test_without_an_endpoint_in_goose_s_config_the_simulator_calls_nothing_and_its_box_reaches_nothing(tmp_path):
    require_bwrap()
    home, env = sim_home(tmp_path, None)
    turn = bench(home, env)
    assert turn["run"]["network"] == {"endpoints": [], "bytes_sent": 0, "bytes_received": 0, "connections": 0,
                                      "failed": 0}
    assert turn["verdict"]["dimensions"]["swarm"]["status"] == "pass"
