"""Fixtures for the security tests: a hostile app, a throwaway password-protected Redis, and one
hostile campaign run embedded (``swarmgym bench``) and one through a real fleet (Celery workers).

Each attack is tried once per mode by :mod:`tests.security.hostile.payload` (everything at once);
the tests then look at what it left behind.  Without a working bubblewrap these tests skip, except
under ``CI=true`` where they fail (CI installs bubblewrap).
"""
from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time

import pytest
import redis

from swarmgym.testing.localredis import free_port
from tests.support.hostile import Arena, RedisServer, make_arena, require_bwrap, settle, swarmgym


def start_redis_with_password() -> RedisServer:
    """A throwaway password-protected redis-server, answering."""
    if shutil.which("redis-server") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("redis-server is required in CI")
        pytest.skip("redis-server not installed")
    port, pw = free_port(), "rpw-" + secrets.token_hex(8)
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--requirepass", pw], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    srv = RedisServer(port, pw, proc)
    deadline = time.monotonic() + 20
    while True:
        try:
            srv.client().ping()
            return srv
        except redis.RedisError:
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.05)


def stop_redis(srv: RedisServer) -> None:
    srv.proc.terminate()
    srv.proc.wait(10)


@pytest.fixture(scope="session")
def redis_server():
    """The session's broker: the hostile fleet's coordinator and host worker (``fleet``) consume it until
    the session ends, so a test that starts a fleet of its own takes ``own_redis``."""
    srv = start_redis_with_password()
    yield srv
    stop_redis(srv)


@pytest.fixture
def own_redis():
    """A password-protected redis-server of this test's own (a fleet that must not share the session's
    queues with the hostile fleet's workers)."""
    srv = start_redis_with_password()
    yield srv
    stop_redis(srv)


@pytest.fixture(scope="session")
def embedded(tmp_path_factory, redis_server) -> Arena:
    """A hostile smoke campaign through ``swarmgym bench`` (the embedded mode)."""
    require_bwrap()
    arena = make_arena(tmp_path_factory.mktemp("embedded"), redis_server)
    res = swarmgym(arena, "bench", "--tier", "smoke", "--variant", "mlx", "--swarm", "command")
    arena.out = res.stdout + res.stderr
    assert res.returncode == 0, arena.out
    arena.campaign_id = next(line.split()[1].rstrip(":") for line in res.stdout.splitlines() if line.startswith("campaign "))
    settle(arena)
    return arena


@pytest.fixture(scope="session")
def fleet(tmp_path_factory, redis_server) -> Arena:
    """The same hostile campaign through a real fleet: a coordinator and a host worker (Celery
    processes) on the throwaway Redis; enqueued with ``swarmgym enqueue``."""
    require_bwrap()
    from swarmgym.testing.localfleet import LocalFleet

    redis_server.client().flushdb()
    arena = make_arena(tmp_path_factory.mktemp("fleet"), redis_server)
    lf = LocalFleet(arena.home, {k: v for k, v in arena.env.items()}, die_with_parent=True)
    names = [lf.coordinator(), lf.worker("mlx", "h1")]
    from swarmgym.config import load_config
    from swarmgym.queue.app import make_app

    old = dict(os.environ)
    try:
        app = make_app(load_config(arena.home, environ={**arena.env, "SWARMGYM_BROKER_URL": redis_server.url}))
        lf.wait_ready(app, names)
        res = swarmgym(arena, "enqueue", "--tier", "smoke", "--variant", "mlx", "--swarm", "command")
        arena.out = res.stdout + res.stderr
        assert res.returncode == 0, arena.out
        arena.campaign_id = res.stdout.split()[0]
        deadline = time.monotonic() + 240
        while not any(x.get("job_id") == f"campaign:{arena.campaign_id}" for x in arena.ledger_lines()):
            assert time.monotonic() < deadline, "the hostile campaign was never finalized:\n" + "\n".join(
                p.read_text()[-3000:] for p in (arena.home / "logs").glob("*.log"))
            time.sleep(0.5)
        arena.extra.update(app=app, fleet=lf)
        settle(arena)
        yield arena
    finally:
        os.environ.clear()
        os.environ.update(old)
        lf.stop_all()


@pytest.fixture
def planned(tmp_path, tmp_path_factory, redis_server):
    from swarmgym.campaigns.bench import new_bench_campaign
    from swarmgym.config import load_config
    from swarmgym.queue import store
    from swarmgym.trust.hostkeys import new_key_file, trust

    keys = tmp_path_factory.mktemp("keys")  # outside the home, as an operator keeps them
    cfg = load_config(tmp_path, environ={}, overrides={"queue.keyring_file": str(keys / "keyring")})
    for host in ("h1", "h2"):
        trust(keys / "keyring", host, new_key_file(keys / f"{host}.key", host))
    camp = new_bench_campaign(cfg, "smoke", "mlx", swarm="sim")
    r = redis_server.client(db=5)  # db 0 belongs to the hostile fleet
    r.flushdb()
    store.ensure_redis(r, camp)  # what enqueue does: the campaign's counters exist before any job runs
    return Planned(cfg, r, camp, camp.jobs[0], keys)


class Planned:
    def __init__(self, cfg, r, camp, job, keys):
        self.cfg, self.r, self.camp, self.job, self.keys = cfg, r, camp, job, keys

    def __iter__(self):
        return iter((self.cfg, self.r, self.camp, self.job))

    def key(self, host: str) -> bytes:
        from swarmgym.trust.hostkeys import read_key_file

        return read_key_file(self.keys / f"{host}.key")

    def refusal(self, res, signer: str | None = None, bundle: str | None = None) -> str | None:
        """The coordinator's answer to ``res`` signed by ``signer``'s key (default: the host it names)."""
        from swarmgym.queue import accept
        from swarmgym.trust.signing import sign

        payload = res.model_dump(mode="json")
        sig = sign(self.key(signer or res.host), res.host, payload, bundle)
        return accept.record_refusal(self.cfg, self.r, res, payload, bundle, sig)
