"""Which model endpoints a job's swarm box reaches: goose's pool endpoint (as goose reads it), ``swarm.endpoints``,
the local brain's URL — never the broker."""
from __future__ import annotations

import pytest
import yaml

from swarmgym.adapters import get_adapter
from swarmgym.adapters.base import box_routes
from swarmgym.config import load_config
from swarmgym.core.errors import AdapterError


def goose_config(folder, **swarm):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(yaml.safe_dump({"GOOSE_PROVIDER": "lmstudio", "swarm": swarm}))
    return folder


def test_goose_reaches_the_endpoint_its_pool_config_names_or_gooses_default(tmp_path):
    goose = get_adapter("goose", load_config(tmp_path, environ={}))
    [ep] = goose.endpoints(goose_config(tmp_path / "a", endpoint="http://studio.local:1234"))
    assert (ep.host, ep.port, ep.key_env) == ("studio.local", 1234, "LMSTUDIO_API_KEY")  # its key: added on the host
    [default] = goose.endpoints(goose_config(tmp_path / "b", planner_model="qwen3"))
    assert (default.host, default.port) == ("localhost", 1234)  # goose's default_endpoint
    [tls] = goose.endpoints(goose_config(tmp_path / "c", endpoint="https://lm.example.com"))
    assert tls.tls and tls.key_env is None  # end to end: the forwarder cannot add a key inside TLS


def test_the_simulator_reaches_an_endpoint_only_where_its_goose_config_names_one(tmp_path):
    sim = get_adapter("sim", load_config(tmp_path, environ={}))
    assert sim.endpoints(goose_config(tmp_path / "a", planner_model="qwen3")) == []
    assert [e.port for e in sim.endpoints(goose_config(tmp_path / "b", endpoint="http://127.0.0.1:4321"))] == [4321]


def test_swarm_endpoints_and_the_local_brain_join_the_swarms_own_with_their_keys_host_side(tmp_path, monkeypatch):
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({
        "swarm": {"endpoints": ["http://mini:8080", {"url": "https://api.example.com", "key_env": "EX_KEY",
                                                      "header": "x-api-key", "listen": "127.0.0.1:8443"}]},
        "brain": {"provider": "local", "local_endpoint": "http://127.0.0.1:1234/v1"}}))
    cfg = load_config(tmp_path, environ={})
    monkeypatch.setenv("EX_KEY", "from-the-host")
    routes = box_routes(cfg, get_adapter("goose", cfg).endpoints(goose_config(tmp_path / "g", endpoint="http://localhost:1234")),
                        {"LMSTUDIO_API_KEY": "lm-key"})
    shown = [r.endpoint.shown() for r in routes]
    # goose's localhost:1234 and the brain's 127.0.0.1:1234/v1 are one LM Studio: one route, goose's key kept
    assert shown == ["http://localhost:1234", "http://mini:8080", "https://api.example.com:443 (box: 127.0.0.1:8443)"]
    assert [r.header for r in routes] == [("authorization", "Bearer lm-key"), None, ("x-api-key", "from-the-host")]


def test_an_endpoint_that_is_the_broker_is_refused_in_one_line(tmp_path):
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"swarm": {"endpoints": ["http://localhost:6390"]},
                                                          "queue": {"broker_url": "redis://:pw@127.0.0.1:6390/0"}}))
    with pytest.raises(AdapterError, match=r"swarm.endpoints\[0\]: http://localhost:6390 is the broker"):
        box_routes(load_config(tmp_path, environ={}))


def test_a_goose_endpoint_the_box_cannot_be_given_is_refused_naming_goose_s_config(tmp_path):
    goose = get_adapter("goose", load_config(tmp_path, environ={}))
    own = goose.endpoints(goose_config(tmp_path / "g", endpoint="http://192.168.1.20:1234"))
    with pytest.raises(AdapterError, match=r"goose's swarm.endpoint .*config.yaml.*outside the loopback"):
        box_routes(load_config(tmp_path, environ={}), own)
