"""Fixtures for the queue tests: a throwaway ``redis-server`` per pytest session, real worker processes.

Each session starts its own Redis on a free port (no persistence) and stops it at the end, so two
test runs on one machine never consume each other's tasks.  Under ``CI=true`` nothing skips: a
missing ``redis-server`` is a failure.
"""
from __future__ import annotations

import os
import time

import pytest
import redis
import yaml

from swarmgym.config import load_config

BROKER_DB, BACKEND_DB, SPARE_DB = 0, 1, 2
_SERVER: list = []  # the session's LocalRedis (set by the ``redis_server`` fixture)


def url(db: int = BROKER_DB) -> str:
    if not _SERVER:
        raise RuntimeError("the redis_server fixture is not active")
    return _SERVER[0].url(db)


def start_redis():
    """A throwaway redis-server (free port, no persistence); under ``CI=true`` a missing one fails, never skips."""
    from swarmgym.errors import QueueError
    from swarmgym.queue.localredis import LocalRedis

    try:
        return LocalRedis()
    except QueueError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(str(e))
        pytest.skip(str(e))


@pytest.fixture(scope="session")
def redis_server():
    server = start_redis()
    _SERVER.append(server)
    yield server
    _SERVER.remove(server)
    server.close()


@pytest.fixture
def own_redis():
    """A redis-server of this test's own, for tests that must not share the session's."""
    server = start_redis()
    yield server
    server.close()


def client(db: int) -> redis.Redis:
    return redis.Redis.from_url(url(db), decode_responses=True, socket_connect_timeout=2)


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


def write_config(home, **queue) -> None:
    q = {"broker_url": queue.get("broker_url") or url(BROKER_DB),
         "result_backend": queue.get("result_backend") or url(BACKEND_DB), "visibility_timeout": 600,
         "lease_ttl": 4, "sample_hz": 4, "soft_time_limit": 300, "time_limit": 360, "lost_grace": 5,
         "schedule_grace": 1800, "reconcile_secs": 5}
    q.update(queue)
    swarm = {"timeout": q.pop("swarm_timeout", 120)}
    extra = q.pop("extra", {})
    (home / "config.yaml").write_text(yaml.safe_dump({"queue": q, "swarm": swarm, **extra}))


@pytest.fixture
def home(tmp_path, rdb):
    h = tmp_path / "home"
    h.mkdir()
    write_config(h)
    return h


SIM_ENV = {"SWARMGYM_SIM_TIME_SCALE": "0.002"}


@pytest.fixture
def fleet_factory(home):
    from swarmgym.queue.localfleet import LocalFleet

    made = []

    def make(**env):
        f = LocalFleet(home, {**SIM_ENV, **env}, die_with_parent=True)
        made.append(f)
        return f

    yield make
    for f in made:
        f.stop_all()


def app_for(home):
    from swarmgym.queue.app import make_app

    return make_app(load_config(home))


def wait_until(pred, timeout: float, interval: float = 0.5, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
