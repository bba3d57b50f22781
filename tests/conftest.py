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

from tests.support.groups import shared_group_name
from tests.support.queue import BACKEND_DB, BROKER_DB, SERVERS, client, start_redis

_XDG = tempfile.mkdtemp(prefix="swarmgym-tests-xdg-")
for _var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
    os.environ[_var] = os.path.join(_XDG, _var.split("_")[1].lower())

# tests/fixtures holds apps under test (with their own tests), not swarmgym's tests
collect_ignore_glob = ["fixtures/*"]


def pytest_configure(config):
    """Byte-compile swarmgym and workers once, in the controller: the tests start hundreds of ``swarmgym``,
    ``swarmgym-sim`` and worker processes, and where ``PYTHONDONTWRITEBYTECODE`` is set (some CI shells set it)
    none of them writes the bytecode it compiles, so each compiled every module it imports again (~0.2 s of CPU
    per process).  Python reads bytecode that exists whatever that variable says; the files are Python's own
    ``__pycache__`` (git-ignored), checked against their sources."""
    if hasattr(config, "workerinput"):
        return
    import compileall
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for pkg in ("swarmgym", "workers"):
        compileall.compile_dir(root / pkg, quiet=2, workers=1)

# A test that takes one of these fixtures starts Celery worker processes: it is ``slow`` whatever its marks
# say (docs/testing.md).  Tests that start a LocalFleet themselves carry the mark explicitly.
# Likewise a test that takes a Redis fixture is ``redis``.
SLOW_FIXTURES = ("fleet_factory", "fleet")  # queue tests' fleets; the security tests' hostile fleet campaign
REDIS_FIXTURES = ("redis_server", "own_redis", "rdb")


# Under ``-n 2`` (``--dist loadgroup``, pyproject.toml) the tests that take one of these expensive module- or
# session-scoped fixtures run on one worker, so it is built once per run, not once per worker (a group per
# fixture: tests/support/groups.py).  A test that reaches one through ``request.getfixturevalue`` marks its
# group itself (tests/security/test_hostile_app.py).  Cheap shared fixtures (a config, a loaded suite) are not
# grouped: their tests spread over both workers.
SHARED_FIXTURES = ("embedded", "fleet",  # tests/security: a hostile campaign, embedded and through a fleet
                   "hung",  # tests/queue/test_hung_swarms.py: a fleet of three hung swarms
                   "bench_world",  # tests/security/test_allowlist.py: a snooping bench
                   "runs",  # tests/contract/test_simulator.py: five simulator runs
                   "one_round",  # tests/comparison/test_compare.py: a compare round
                   "home",  # tests/cli/test_evidence_once.py: two benches (module-scoped there only)
                   "fresh_venv")  # tests/test_packaging.py: the wheel in a fresh venv


def shared_group(item) -> str | None:
    """The xdist group of a test that takes one of :data:`SHARED_FIXTURES`, or None."""
    info = getattr(item, "_fixtureinfo", None)
    for name in sorted(set(getattr(item, "fixturenames", ())).intersection(SHARED_FIXTURES)):
        defs = info.name2fixturedefs.get(name) if info is not None else None
        if defs and defs[-1].scope in ("module", "package", "session"):  # ``home`` is per test elsewhere
            return shared_group_name(defs[-1].baseid, name)
    return None


@pytest.hookimpl(tryfirst=True)  # before ``-m "not slow"`` deselects, before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names.intersection(SLOW_FIXTURES):
            item.add_marker(pytest.mark.slow)
        if names.intersection(REDIS_FIXTURES):
            item.add_marker(pytest.mark.redis)
        group = shared_group(item)
        if group and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))


def pytest_runtest_setup(item):
    """An xdist worker under ``--dist loadgroup`` names a grouped test ``<nodeid>@<group>``: that suffix is all
    that keeps a group on one worker.  Under pytest 9.2 it no longer takes (pytest-xdist#1386; the dev extra
    pins pytest<9.2) and the groups silently spread over both workers, each building every shared fixture:
    a grouped test fails instead of losing the time unseen."""
    if getattr(item.config.option, "loadgroup", False) and item.get_closest_marker("xdist_group") \
            and "@" not in item.nodeid:                    # ``option.loadgroup``: xdist workers under loadgroup
        pytest.fail(f"--dist loadgroup dropped this test's xdist_group: pytest {pytest.__version__} ignores "
                    "xdist's group suffix (pytest-xdist#1386); pip install -e '.[dev]' (pytest<9.2)", pytrace=False)


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
