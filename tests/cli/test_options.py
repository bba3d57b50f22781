"""One table of options: every option of every command (nested ones too) is a key of the typed config with one
env var, shown in --help and documented in docs/config.md; older names still work, each with a warning."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import click
import yaml
from click.testing import CliRunner

from swarmgym import REPO_ROOT
from swarmgym.cli import cli
from swarmgym.cli.configdoc import render_docs
from swarmgym.cli.options import SettingOption, commands
from swarmgym.config import env_name, keys
from swarmgym.suitekit.suite import load_suite

ENV = {k: v for k, v in os.environ.items() if not k.startswith("SWARMGYM_")}
BUILT_IN = {"help", "version"}


def options():
    for path, cmd in commands(cli):
        for p in cmd.params:
            if isinstance(p, click.Option) and p.name not in BUILT_IN:
                yield path, cmd, p


def test_every_option_of_every_command_is_a_setting_with_its_one_env_var():
    seen = list(options())
    assert len(seen) > 90 and any(path == ("hosts", "key", "list") for path, _, _ in seen)
    bad = [f"swarmgym {' '.join(path)} {p.opts}" for path, _, p in seen if not isinstance(p, SettingOption)]
    assert not bad, f"options that are no setting (use @setting(key, ...), swarmgym/cli/options.py): {bad}"
    for path, _, p in seen:
        assert p.key in keys(), (path, p.opts)
        if p.deprecated_alias:
            assert p.hidden and p.envvar is None, (path, p.opts)
        else:
            assert p.envvar == env_name(p.key), (path, p.opts, p.envvar)   # exactly one name, the key's


def test_no_setting_has_a_second_name():
    flags: dict[str, set[str]] = {}
    for _, _, p in options():
        if not p.deprecated_alias:
            flags.setdefault(p.key, set()).add(p.flag)
    two = {k: sorted(v) for k, v in flags.items() if len(v) > 1}
    assert not two, f"one setting, several option names: {two}"
    envs = [env_name(k) for k in keys()]
    assert len(envs) == len(set(envs)), "two keys share an env var"


def test_every_help_screen_shows_each_options_env_var_key_and_default():
    runner = CliRunner()
    for path, cmd in commands(cli):
        shown = [p for p in cmd.params if isinstance(p, SettingOption) and not p.hidden]
        if not shown:
            continue
        out = " ".join(runner.invoke(cli, [*path, "--help"], terminal_width=400, env=ENV).output.split())
        for p in shown:
            assert f"[env {p.envvar}; {p.key}; default " in out, (path, p.opts, out[-600:])


def test_docs_config_md_is_generated_from_the_table():
    doc = (REPO_ROOT / "docs" / "config.md").read_text()
    assert doc == render_docs(cli), "docs/config.md is stale: python -m swarmgym.cli.configdoc > docs/config.md"
    for key in keys():
        assert f"| `{key}` | `{env_name(key)}` |" in doc


def swarmgym(home, *args, **env):
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), *args], capture_output=True,
                          text=True, timeout=120, env={**ENV, "HOME": str(home.parent / "user"),
                                                       "XDG_CONFIG_HOME": "", **env})


def trust_one_host(home) -> dict[str, str]:
    key = home.parent / "user" / ".config" / "swarmgym" / "host.key"
    assert swarmgym(home, "hosts", "key", "new", "h1").returncode == 0
    assert swarmgym(home, "hosts", "key", "add", "h1", str(key)).returncode == 0
    return json.loads(swarmgym(home, "hosts", "key", "list", "--json").stdout)


def test_nested_commands_read_their_env_var_and_config_yaml(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    trusted = trust_one_host(home)
    assert json.loads(swarmgym(home, "hosts", "key", "list", SWARMGYM_OUTPUT_JSON="1").stdout) == trusted
    r = swarmgym(home, "suite", "hash", SWARMGYM_SUITE="bench-v2")
    assert r.stdout.strip() == load_suite("bench-v2").hash and r.stderr.count("warning") == 0
    (home / "config.yaml").write_text(yaml.safe_dump({"output": {"json": True}, "suite": "bench-v1"}))
    assert json.loads(swarmgym(home, "hosts", "key", "list").stdout) == trusted
    assert swarmgym(home, "suite", "hash").stdout.strip() == load_suite("bench-v1").hash
    assert swarmgym(home, "suite", "hash", "--suite", "bench-v2").stdout.strip() == load_suite("bench-v2").hash


def test_tier_sizes_in_help_come_from_the_suite(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    nine = " ".join(swarmgym(home, "enqueue", "--help").stdout.split())
    assert "suite bench-v6, 9 specs: smoke 1x1, light 9x1, medium 9x2, high 9x4, extreme 9x4" in nine
    three = " ".join(swarmgym(home, "bench", "--help", SWARMGYM_SUITE="bench-v2").stdout.split())
    assert "suite bench-v2, 3 specs: smoke 1x1, light 3x1, medium 3x5, high 3x10, extreme 3x10" in three


def test_old_names_still_work_each_with_one_warning_naming_the_new_one(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    r = swarmgym(home, "doctor", "--json", SWARMGYM_SWARM="command")
    assert json.loads(r.stdout)["swarm"] == "command"
    assert r.stderr.count("warning") == 1
    assert "swarmgym: warning: SWARMGYM_SWARM is deprecated; use SWARMGYM_SWARM_ADAPTER (swarm.adapter)" in r.stderr
    trusted = trust_one_host(home)
    r = swarmgym(home, "hosts", "key", "list", SWARMGYM_HOSTS_KEY_LIST_JSON="1")
    assert json.loads(r.stdout) == trusted
    assert "SWARMGYM_HOSTS_KEY_LIST_JSON is deprecated; use SWARMGYM_OUTPUT_JSON (output.json)" in r.stderr
    old = subprocess.run([sys.executable, "-m", "swarmgym", "--root", str(home), "hosts", "key", "list", "--json"],
                         capture_output=True, text=True, timeout=120,
                         env={**ENV, "HOME": str(home.parent / "user"), "XDG_CONFIG_HOME": ""})
    assert json.loads(old.stdout) == trusted and "warning: --root is deprecated; use --home" in old.stderr


def test_a_check_timeout_under_any_of_its_names_is_the_same_setting(tmp_path):
    """verify's SWARMGYM_CHECK_TIMEOUT and bench's SWARMGYM_BENCH_CHECK_TIMEOUT were two names; now there is
    one, SWARMGYM_CHECKS_TIMEOUT, and the old ones still set it (with a warning)."""
    suite = tmp_path / "slow-v1"
    suite.mkdir()
    (suite / "suite.yaml").write_text(yaml.safe_dump({"name": "slow-v1", "specs": [{
        "id": "slow", "app_slug": "slowapp", "language": "shell", "archetype": "file", "prompt": "p",
        "hard_prompt": "p", "checks": [{"name": "takes_3s", "kind": "command_succeeds", "run": "sleep 3"}]}]}))
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    ws.mkdir()
    for name in ("SWARMGYM_CHECKS_TIMEOUT", "SWARMGYM_CHECK_TIMEOUT", "SWARMGYM_VERIFY_CHECK_TIMEOUT"):
        r = swarmgym(home, "verify", "--suite", str(suite), "--spec", "slow", "--json", str(ws), **{name: "0.5"})
        [check] = json.loads(r.stdout)["dimensions"]["checks"]["checks"]
        assert r.returncode == 1 and not check["passed"] and "timed out" in check["detail"], (name, check)
        warned = "SWARMGYM_CHECKS_TIMEOUT (checks.timeout)" in r.stderr
        assert warned == (name != "SWARMGYM_CHECKS_TIMEOUT"), (name, r.stderr)


def test_a_bad_value_is_one_line_naming_where_it_came_from(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    r = swarmgym(home, "bench", SWARMGYM_CAMPAIGN_TIER="huge")
    assert r.returncode == 2 and "'huge' is not one of" in r.stderr
    assert "(from the env var SWARMGYM_CAMPAIGN_TIER)" in r.stderr
    (home / "config.yaml").write_text(yaml.safe_dump({"campaign": {"parallel": 0}}))
    r = swarmgym(home, "bench")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    [line] = r.stderr.strip().splitlines()
    assert line.startswith(f"swarmgym: {home / 'config.yaml'}: key campaign.parallel: expected greater than or equal")
