"""goose's folders as goose's paths.rs resolves them — the one resolution reader and simulator share."""
from __future__ import annotations

from pathlib import Path

from swarmgym.collect.goose_paths import goose_dir, sessions_db


def test_goose_path_root_moves_data_config_and_state_taken_literally():
    env = {"GOOSE_PATH_ROOT": "/srv/g", "XDG_DATA_HOME": "/x", "HOME": "/home/u"}
    assert sessions_db(env) == Path("/srv/g/data/sessions/sessions.db")
    assert goose_dir("config", env) == Path("/srv/g/config")  # so goose then has an empty pool
    assert [goose_dir(k, env) for k in ("data", "config", "state")] == [Path("/srv/g/data"), Path("/srv/g/config"),
                                                                    Path("/srv/g/state")]
    assert goose_dir("data", {"GOOSE_PATH_ROOT": "~/g", "HOME": "/home/u"}) == Path("~/g/data")  # no ~ expansion


def test_xdg_dirs_then_the_home_defaults_as_on_linux_and_macos():
    env = {"HOME": "/home/u", "XDG_DATA_HOME": "/xd", "XDG_CONFIG_HOME": "/xc"}
    assert sessions_db(env) == Path("/xd/goose/sessions/sessions.db")
    assert goose_dir("config", env) == Path("/xc/goose")
    assert goose_dir("state", env) == Path("/home/u/.local/state/goose")
    assert sessions_db({"HOME": "/home/u"}) == Path("/home/u/.local/share/goose/sessions/sessions.db")


def test_a_relative_xdg_value_is_ignored_as_the_xdg_spec_says():
    assert sessions_db({"HOME": "/home/u", "XDG_DATA_HOME": "rel/data"}) == \
        Path("/home/u/.local/share/goose/sessions/sessions.db")


def test_a_fresh_root_drops_what_an_earlier_run_left_and_copies_the_pristine_config(tmp_path):
    from swarmgym.collect.goose_paths import fresh_root, job_root

    pristine = {"GOOSE_PATH_ROOT": str(tmp_path / "operator")}
    (tmp_path / "operator" / "config").mkdir(parents=True)
    (tmp_path / "operator" / "config" / "config.yaml").write_text("GOOSE_PROVIDER: lmstudio\n")
    root = job_root(tmp_path / "apps" / "calc" / "ws1")
    assert root == tmp_path / "apps" / "calc" / ".goose-state" / "ws1"  # beside the workspace, not in it
    (root / "config").mkdir(parents=True)
    (root / "config" / "planted.yaml").write_text("GOOSE_PROVIDER: attacker\n")
    (root / "data").symlink_to(tmp_path / "operator")  # a link an earlier run planted
    fresh_root(pristine, root)
    assert sorted(p.name for p in (root / "config").iterdir()) == ["config.yaml"]
    assert (root / "data").is_dir() and not (root / "data").is_symlink()
    assert sorted(p.name for p in (tmp_path / "operator").rglob("*")) == ["config", "config.yaml"]
