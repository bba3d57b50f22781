"""Fixtures for the queue tests: a queue home on the session's throwaway Redis, real worker processes.

The Redis fixtures (``redis_server``, ``own_redis``, ``rdb``) are in ``tests/conftest.py``; the helpers
(``write_config``, ``wait_until``, ``tiny_jobs_home``, …) in :mod:`tests.support.queue`.
"""
from __future__ import annotations

import pytest

from tests.support.queue import SIM_ENV, write_config


@pytest.fixture
def home(tmp_path, rdb):
    h = tmp_path / "home"
    h.mkdir()
    write_config(h)
    return h


@pytest.fixture
def fleet_factory(home):
    from swarmgym.testing.localfleet import LocalFleet

    made = []

    def make(**env):
        f = LocalFleet(home, {**SIM_ENV, **env}, die_with_parent=True)
        made.append(f)
        return f

    yield make
    for f in made:
        f.stop_all()
