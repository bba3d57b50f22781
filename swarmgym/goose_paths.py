"""Where goose local-edition keeps its state: one resolution, used by the reader and the simulator.

From goose's ``crates/goose/src/config/paths.rs`` (``Paths::get_dir``) and
``crates/goose/src/session/session_manager.rs`` (``SessionStorage::new``, ``SESSIONS_FOLDER``,
``DB_NAME``):

- ``GOOSE_PATH_ROOT=<r>`` (taken literally, no ``~`` expansion) moves everything: data to
  ``<r>/data``, config to ``<r>/config``, state to ``<r>/state`` — so it also moves the pool config
  (goose then sees an empty pool);
- otherwise goose asks ``etcetera::choose_app_strategy`` — the XDG strategy on Linux *and* macOS
  (only Windows differs) — with the app name ``goose``: data ``$XDG_DATA_HOME/goose`` (default
  ``~/.local/share/goose``), config ``$XDG_CONFIG_HOME/goose`` (``~/.config/goose``), state
  ``$XDG_STATE_HOME/goose`` (``~/.local/state/goose``).  As the XDG spec says, a relative
  ``XDG_*`` value is ignored;
- sessions live in ``<data>/sessions/sessions.db``.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

APP = "goose"
KINDS = {"data": ("XDG_DATA_HOME", ".local/share"), "config": ("XDG_CONFIG_HOME", ".config"),
         "state": ("XDG_STATE_HOME", ".local/state")}


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or os.path.expanduser("~"))


def _xdg(env: Mapping[str, str], var: str, default: str) -> Path:
    value = env.get(var)
    if value and os.path.isabs(value):
        return Path(value)
    return _home(env) / default


def goose_dir(kind: str, env: Mapping[str, str] | None = None) -> Path:
    """goose's ``data``, ``config`` or ``state`` directory for the given environment."""
    env = os.environ if env is None else env
    if kind not in KINDS:
        raise ValueError(f"goose_dir: kind must be data, config or state, got {kind!r}")
    root = env.get("GOOSE_PATH_ROOT")
    if root:
        return Path(root) / kind
    var, default = KINDS[kind]
    return _xdg(env, var, default) / APP


def sessions_db(env: Mapping[str, str] | None = None) -> Path:
    """goose's ``sessions.db`` for the given environment."""
    return goose_dir("data", env) / "sessions" / "sessions.db"


def state_dirs(env: Mapping[str, str] | None = None) -> list[Path]:
    """Every folder goose may write outside the workspace (for an isolation box's writable list)."""
    return [goose_dir(k, env) for k in KINDS]
