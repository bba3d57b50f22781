"""Configuration: defaults < config.yaml < .env < process env, and one-line errors for bad input."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from swarmgym.config import Config, load_config
from swarmgym.core.errors import ConfigError


def write(home, text: str, name: str = "config.yaml"):
    home.mkdir(parents=True, exist_ok=True)
    (home / name).write_text(text)
    return home


def error_of(home, environ=None) -> str:
    with pytest.raises(ConfigError) as e:
        load_config(home, environ=environ or {})
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_defaults_without_any_file(tmp_path):
    cfg = load_config(tmp_path, environ={})
    assert cfg.checks.timeout == Config().checks.timeout
    assert cfg.home == tmp_path.resolve()
    assert cfg.ledger_dir == tmp_path.resolve() / "ledger"
    assert cfg.suites_dir.is_absolute()


def test_the_example_config_yaml_at_the_root_spells_out_the_defaults(tmp_path):
    """The README's commands run from a checkout, whose ``config.yaml`` is the home's: it once still named bench-v3
    after bench-v5 became the default, so ``swarmgym bench`` there ran the old suite."""
    root = Path(__file__).resolve().parent.parent
    shutil.copy(root / "config.yaml", tmp_path / "config.yaml")
    example = load_config(tmp_path, environ={}).model_dump()
    (tmp_path / "config.yaml").unlink()
    assert example == load_config(tmp_path, environ={}).model_dump()


def test_config_yaml_sets_nested_keys(tmp_path):
    write(tmp_path, "checks:\n  timeout: 30\n  memory_mb: 1024\nsecrets: [LAB_PASS]\n")
    cfg = load_config(tmp_path, environ={})
    assert (cfg.checks.timeout, cfg.checks.memory_mb, cfg.secrets) == (30, 1024, ["LAB_PASS"])


def test_bad_yaml_names_the_file_and_line(tmp_path):
    write(tmp_path, "checks:\n  timeout: [1, 2\n")
    msg = error_of(tmp_path)
    assert str(tmp_path / "config.yaml") in msg and "not valid YAML" in msg


def test_unknown_key_names_the_file_and_key(tmp_path):
    write(tmp_path, "checks:\n  timeuot: 5\n")
    msg = error_of(tmp_path)
    assert str(tmp_path / "config.yaml") in msg and "checks.timeuot" in msg and "unknown key" in msg


def test_wrong_type_names_the_file_the_key_and_the_value(tmp_path):
    write(tmp_path, "checks: {timeout: abc}\n")
    msg = error_of(tmp_path)
    assert str(tmp_path / "config.yaml") in msg and "checks.timeout" in msg and "'abc'" in msg


def test_top_level_must_be_a_mapping(tmp_path):
    write(tmp_path, "- just\n- a list\n")
    assert "mapping" in error_of(tmp_path)


def test_section_that_is_not_a_mapping_is_reported_with_its_key(tmp_path):
    write(tmp_path, "checks: 5\n")
    msg = error_of(tmp_path, {"SWARMGYM_CHECK_TIMEOUT": "9"})
    assert "checks" in msg and str(tmp_path / "config.yaml") in msg


@pytest.mark.parametrize("var, dotted, value, expected", [
    ("SWARMGYM_CHECK_TIMEOUT", "checks.timeout", "7.5", 7.5),
    ("SWARMGYM_CHECKS_TIMEOUT", "checks.timeout", "8", 8.0),
    ("SWARMGYM_CHECKS_MEMORY_MB", "checks.memory_mb", "512", 512),
    ("SWARMGYM_SWARM_ADAPTER", "swarm.adapter", "goose", "goose"),
])
def test_env_var_overrides_config_yaml(tmp_path, var, dotted, value, expected):
    write(tmp_path, "checks:\n  timeout: 30\n  memory_mb: 1024\n")
    cfg = load_config(tmp_path, environ={var: value})
    section, key = dotted.split(".")
    assert getattr(getattr(cfg, section), key) == expected


def test_dotenv_sits_between_config_yaml_and_the_process_env(tmp_path):
    write(tmp_path, "checks:\n  timeout: 30\n  memory_mb: 1024\n")
    write(tmp_path, "# local settings\nSWARMGYM_CHECKS_MEMORY_MB=300\nexport SWARMGYM_CHECK_TIMEOUT='11'\n", ".env")
    cfg = load_config(tmp_path, environ={})
    assert (cfg.checks.memory_mb, cfg.checks.timeout) == (300, 11)
    cfg = load_config(tmp_path, environ={"SWARMGYM_CHECK_TIMEOUT": "12"})
    assert cfg.checks.timeout == 12


def test_bad_env_value_names_the_env_var(tmp_path):
    msg = error_of(tmp_path, {"SWARMGYM_CHECKS_MEMORY_MB": "lots"})
    assert "SWARMGYM_CHECKS_MEMORY_MB" in msg and "checks.memory_mb" in msg


def test_bad_dotenv_line_names_the_file_and_line(tmp_path):
    write(tmp_path, "SWARMGYM_CHECK_TIMEOUT=5\nthis is not an assignment\n", ".env")
    msg = error_of(tmp_path)
    assert f"{tmp_path / '.env'}:2" in msg


def test_cli_override_wins_and_is_named_in_errors(tmp_path):
    cfg = load_config(tmp_path, environ={"SWARMGYM_CHECK_TIMEOUT": "5"}, overrides={"checks.timeout": 9})
    assert cfg.checks.timeout == 9
    with pytest.raises(ConfigError, match="--timeout"):
        load_config(tmp_path, environ={}, overrides={"checks.timeout": -1})


def _swarmgym(*args, home, env_extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWARMGYM_")}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), *args],
                          capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.parametrize("config_text, needle", [
    ("checks: {timeout: abc}\n", "checks.timeout"),
    ("checks:\n  timeuot: 5\n", "checks.timeuot"),
    ("checks: [1, 2\n", "not valid YAML"),
])
def test_cli_with_a_malformed_config_exits_2_with_one_line_and_no_traceback(tmp_path, config_text, needle):
    write(tmp_path, config_text)
    res = _swarmgym("suite", "hash", home=tmp_path)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "config.yaml" in lines[0]


def test_cli_with_a_bad_env_value_names_the_variable(tmp_path):
    res = _swarmgym("suite", "hash", home=tmp_path, env_extra={"SWARMGYM_CHECK_TIMEOUT": "abc"})
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "SWARMGYM_CHECK_TIMEOUT" in res.stderr


def test_secrets_in_dotenv_reach_the_process_like_exported_ones(tmp_path, monkeypatch):
    name = "SWARMGYM_TEST_DOTENV_API_KEY"
    monkeypatch.setenv(name, "placeholder")
    monkeypatch.delenv(name)  # restored to absent after the test
    (tmp_path / ".env").write_text(f"{name}=from-dotenv\n")
    load_config(tmp_path)
    assert os.environ[name] == "from-dotenv"
