from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from swarmgym.config import load_config

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "collect"


@pytest.fixture
def cfg(tmp_path):
    return load_config(tmp_path, environ={})


@pytest.fixture
def fixture_path():
    return lambda name: FIX / name


@pytest.fixture
def workspace_with_log(tmp_path):
    """A workspace whose .swarm/ holds a copy of the named fixture log."""
    def make(name: str) -> Path:
        ws = tmp_path / "ws"
        (ws / ".swarm").mkdir(parents=True, exist_ok=True)
        shutil.copy(FIX / name, ws / ".swarm" / "run-swarm-20260101-120000123.jsonl")
        return ws
    return make


@pytest.fixture
def sessions_db(tmp_path):
    """A goose-schema sessions.db built from the SQL fixture (rollback journal, like older goose)."""
    path = tmp_path / "goose" / "data" / "sessions" / "sessions.db"
    path.parent.mkdir(parents=True)
    con = sqlite3.connect(path)
    con.executescript((FIX / "sessions.sql").read_text())
    con.commit()
    con.close()
    return path


@pytest.fixture
def cat_outcome(tmp_path):
    """A RunOutcome from the real command adapter printing a fixture file on stdout."""
    from swarmgym.adapters import get_adapter

    def run(ws: Path, fixture: str):
        c = load_config(tmp_path, environ={}, overrides={"swarm.command": [
            sys.executable, "-c", "import sys; sys.stdout.write(open(sys.argv[1]).read())", str(FIX / fixture)]})
        return get_adapter("command", c).run("x", ws)
    return run
