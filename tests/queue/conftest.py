"""Fixtures for the queue tests: the real Redis (DBs 11-14 only) and real worker processes."""
from __future__ import annotations

import os
import time

import pytest
import redis
import yaml

from swarmgym.config import load_config

BROKER_DB, BACKEND_DB = 13, 14  # 11-12: leases/unit tests
URL = "redis://127.0.0.1:6379/{}"


def _redis_or_skip(db: int) -> redis.Redis:
    r = redis.Redis.from_url(URL.format(db), decode_responses=True, socket_connect_timeout=2)
    try:
        r.ping()
    except redis.RedisError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis on 127.0.0.1:6379 unreachable in CI: {e}")
        pytest.skip(f"Redis on 127.0.0.1:6379 unreachable: {e}")
    return r


LOCK_DB, LOCK_KEY = 11, "swarmgym-tests:fleet-lock"


@pytest.fixture(scope="session")
def redis_dbs_lock():
    """Exclusive use of DBs 13-14 for this pytest session.

    Several sessions may run the suite at once on one machine; they would consume each other's
    tasks and flush each other's queues.  A lock in DB 14 serializes them: a second session skips
    these tests, or waits for them when CI=true or SWARMGYM_TEST_FLEET_WAIT is set.
    """
    import threading
    import uuid

    r = _redis_or_skip(LOCK_DB)
    token = uuid.uuid4().hex
    wait = os.environ.get("CI") == "true" or bool(os.environ.get("SWARMGYM_TEST_FLEET_WAIT"))
    deadline = time.monotonic() + (900 if wait else 0)
    while not r.set(LOCK_KEY, token, nx=True, ex=60):
        if time.monotonic() >= deadline:
            pytest.skip(f"another pytest session holds {LOCK_KEY} (Redis DBs 13-14 busy); "
                        "set SWARMGYM_TEST_FLEET_WAIT=1 to wait")
        time.sleep(2)
    stop = threading.Event()

    def renew():
        while not stop.wait(15):
            if r.get(LOCK_KEY) == token:
                r.expire(LOCK_KEY, 60)

    threading.Thread(target=renew, daemon=True).start()
    yield
    stop.set()
    if r.get(LOCK_KEY) == token:
        r.delete(LOCK_KEY)


@pytest.fixture
def rdb(redis_dbs_lock):
    """The broker DB (13), flushed before and after; the backend DB (14) too."""
    r = _redis_or_skip(BROKER_DB)
    backend = _redis_or_skip(BACKEND_DB)
    r.flushdb()
    backend.flushdb()
    yield r
    r.flushdb()
    backend.flushdb()


def write_config(home, **queue) -> None:
    q = {"broker_url": URL.format(BROKER_DB), "result_backend": URL.format(BACKEND_DB), "visibility_timeout": 600,
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
    foreign = app_for(home).control.ping(timeout=1.0) or []
    if foreign:
        names = sorted(k for r in foreign for k in r)
        msg = f"workers not started by this test consume Redis DB {BROKER_DB}: {names}"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)

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
