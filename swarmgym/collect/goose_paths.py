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

Every swarm run swarmgym starts gets its own fresh root (:func:`job_root`, :func:`fresh_root`):
``GOOSE_PATH_ROOT`` points there, the operator's pristine config is copied in without its secrets
(:mod:`swarmgym.collect.goose_config`), and nothing one job writes under it (config, sessions, state,
plugins) is seen by another job.
"""
from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from swarmgym.collect.goose_config import copy_config, job_files

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


#: per-job goose roots live next to the workspace: ``<apps>/<slug>/.goose-state/<workspace name>``
JOB_STATE = ".goose-state"


def job_root(workspace: Path | str) -> Path:
    """The per-job ``GOOSE_PATH_ROOT`` of the swarm run in ``workspace`` (outside the workspace, so
    neither the snapshot nor a check sees it; one per workspace, so no other job does)."""
    ws = Path(workspace).resolve()
    return ws.parent / JOB_STATE / ws.name


def fresh_root(pristine_env: Mapping[str, str], root: Path) -> Path:
    """Make ``root`` a fresh goose root: whatever an earlier run left there is removed, and the
    operator's pristine config (goose's config folder for ``pristine_env``) is copied into
    ``<root>/config`` without its secrets (:func:`swarmgym.collect.goose_config.job_files`); data, state
    and the agents home start empty.  Returns ``root``."""
    if root.is_symlink() or root.is_file():
        root.unlink()
    elif root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    src = goose_dir("config", pristine_env)
    if src.is_dir():
        copy_config(src, root / "config")
    else:
        (root / "config").mkdir()
    for kind in ("data", "state"):
        (root / kind).mkdir()
    return root


def drop_config(root: Path) -> None:
    """Remove the config copy of a finished run (nothing reads it after the run); its sessions stay in
    ``<root>/data`` for the reader."""
    shutil.rmtree(root / "config", ignore_errors=True)


def config_hash(env: Mapping[str, str] | None = None) -> str | None:
    """``sha256:<16 hex>`` over the copy of the goose config folder for ``env`` a job gets (every file
    by relative path and content, without secrets: nothing of a secret goes into the hash), or None
    if there is none."""
    src = goose_dir("config", env)
    if not src.is_dir():
        return None
    h = hashlib.sha256()
    for rel, data in job_files(src):
        h.update(rel.encode() + b"\0" + data + b"\0")
    return "sha256:" + h.hexdigest()[:16]
