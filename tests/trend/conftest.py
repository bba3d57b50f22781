"""Homes for the trend tests (helpers in :mod:`tests.support.trend`): real ``swarmgym`` processes, real (tiny) jobs.

``tiny_home`` is a home whose suite has one spec with one check (``out.txt`` exists) and whose swarm
is the ``command`` adapter: a job is a real boxed subprocess plus a real golden check, in well under a
second.  Swapping the command is a new build of the swarm: ``echo ok > out.txt`` builds a working
app, ``true`` builds nothing.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.trend import WORKS, write_home


@pytest.fixture
def tiny_home(tmp_path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return write_home(home, WORKS)


@pytest.fixture
def trend_home(tmp_path):
    from swarmgym.config import load_config
    from swarmgym.ledger import Ledger

    cfg = load_config(tmp_path, environ={})
    return cfg, Ledger(cfg.ledger_dir)
