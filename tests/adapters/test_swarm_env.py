"""The swarm runs model-written shell commands: it sees only the secrets it is allowed."""
from swarmgym.adapters import get_adapter
from swarmgym.config import load_config


def test_swarm_env_withholds_api_keys_but_passes_the_allowed_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-for-the-swarm")
    monkeypatch.setenv("LMSTUDIO_API_KEY", "lm-key")
    monkeypatch.setenv("CONTEXT7_API_KEY", "ctx7")
    monkeypatch.setenv("SWARMGYM_BROKER_URL", "redis://:pw@127.0.0.1:6379/0")
    cfg = load_config(tmp_path, environ={}, overrides={"swarm.pass_secrets": ["LMSTUDIO_API_KEY", "CONTEXT7_API_KEY"]})
    for name in ("goose", "sim"):
        env = get_adapter(name, cfg).env({"GOOSE_SWARM_REVIEW": "1"})
        assert "ANTHROPIC_API_KEY" not in env and "SWARMGYM_BROKER_URL" not in env
        assert env["LMSTUDIO_API_KEY"] == "lm-key" and env["CONTEXT7_API_KEY"] == "ctx7"
        assert env["GOOSE_SWARM_REVIEW"] == "1"


def test_preflight_refuses_a_swarm_that_cannot_run_before_anything_is_planned(tmp_path):
    import pytest

    from swarmgym.adapters import preflight
    from swarmgym.core.errors import SwarmgymError

    cfg = load_config(tmp_path, environ={}, overrides={"swarm.binary": str(tmp_path / "no-goose")})
    preflight(cfg, "sim", "gguf")  # fine: the fleet has a gguf profile
    for name, variant, words in [("sim", "nosuch", "no such variant"), ("goose", "mlx", "--swarm sim"),
                                 ("command", "mlx", "swarm.command is empty"), ("nope", "mlx", "known: command")]:
        with pytest.raises(SwarmgymError, match=words) as e:
            preflight(cfg, name, variant)
        assert e.value.exit_code == 2 and "\n" not in str(e.value)
