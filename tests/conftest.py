"""Session-wide test hygiene and the shared Redis fixtures.

goose's XDG folders point into a private temp dir, so no test reads or writes the real user's
~/.config/goose, ~/.local/share/goose or ~/.local/state/goose (the simulator and the reader resolve them
like goose does: swarmgym.collect.goose_paths).

Redis: each pytest session starts its own throwaway ``redis-server`` on a free port (no persistence) the
first time a test asks for it and stops it at the end, so two test runs on one machine never consume each
other's tasks; never 127.0.0.1:6379.  Under ``CI=true`` nothing skips: a missing ``redis-server`` is a
failure.  Helpers (URLs, clients, config writers) are in :mod:`tests.support.queue`.
"""
from __future__ import annotations

import os
import tempfile

import pytest
import redis

from tests.support.queue import BACKEND_DB, BROKER_DB, SERVERS, client, start_redis

_XDG = tempfile.mkdtemp(prefix="swarmgym-tests-xdg-")
for _var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
    os.environ[_var] = os.path.join(_XDG, _var.split("_")[1].lower())

# tests/fixtures holds apps under test (with their own tests), not swarmgym's tests
collect_ignore_glob = ["fixtures/*"]

# A test that takes one of these fixtures starts Celery worker processes: it is ``slow`` whatever its marks
# say (docs/testing.md).  Tests that start a LocalFleet themselves carry the mark explicitly.
# Likewise a test that takes a Redis fixture is ``redis``.
SLOW_FIXTURES = ("fleet_factory", "fleet")  # queue tests' fleets; the security tests' hostile fleet campaign
REDIS_FIXTURES = ("redis_server", "own_redis", "rdb")


@pytest.hookimpl(tryfirst=True)  # before ``-m "not slow"`` deselects
def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names.intersection(SLOW_FIXTURES):
            item.add_marker(pytest.mark.slow)
        if names.intersection(REDIS_FIXTURES):
            item.add_marker(pytest.mark.redis)


@pytest.fixture(scope="session")
def redis_server():
    """The session's throwaway redis-server (a ``LocalRedis``)."""
    server = start_redis()
    SERVERS.append(server)
    yield server
    SERVERS.remove(server)
    server.close()


@pytest.fixture
def own_redis():
    """A redis-server of this test's own, for tests that must not share the session's."""
    server = start_redis()
    yield server
    server.close()


@pytest.fixture
def rdb(redis_server):
    """The broker DB, flushed before and after; the backend DB too."""
    r, backend = client(BROKER_DB), client(BACKEND_DB)
    r.flushdb()
    backend.flushdb()
    yield r
    try:
        r.flushdb()
        backend.flushdb()
    except redis.RedisError:  # a test restarted the server
        pass
