"""Choosing an adapter by name, and the errors a user sees when the swarm cannot start."""
from __future__ import annotations

import pytest

from swarmgym.adapters import get_adapter, known_adapters
from swarmgym.config import load_config
from swarmgym.core.errors import AdapterError, UsageError


def test_known_adapters_are_goose_sim_and_command():
    assert known_adapters() == ["command", "goose", "sim"]


def test_unknown_adapter_name_lists_the_known_ones(tmp_path):
    with pytest.raises(UsageError) as e:
        get_adapter("claude-swarm", load_config(tmp_path, environ={}))
    assert "claude-swarm" in str(e.value) and "command, goose, sim" in str(e.value)
    assert e.value.exit_code == 2


def test_missing_goose_binary_is_one_line_naming_the_path_and_suggesting_the_sim(tmp_path):
    missing = tmp_path / "target" / "debug" / "goose"
    cfg = load_config(tmp_path, environ={}, overrides={"swarm.binary": str(missing)})
    with pytest.raises(AdapterError) as e:
        get_adapter("goose", cfg).run("build it", tmp_path / "ws")
    msg = str(e.value)
    assert str(missing) in msg and "--swarm sim" in msg and "\n" not in msg


def test_goose_binary_name_not_on_path_is_reported(tmp_path):
    cfg = load_config(tmp_path, environ={}, overrides={"swarm.binary": "goose-not-installed-here"})
    with pytest.raises(AdapterError, match="goose-not-installed-here: not found on PATH"):
        get_adapter("goose", cfg).run("build it", tmp_path / "ws")


def test_command_adapter_without_a_command_says_which_key_to_set(tmp_path):
    with pytest.raises(AdapterError, match="swarm.command"):
        get_adapter("command", load_config(tmp_path, environ={})).run("x", tmp_path / "ws")
