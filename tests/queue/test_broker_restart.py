"""Redis restarted without persistence while three campaigns run (real workers, a Redis of the test's own): the
coordinator notices, rebuilds, and re-sends what nobody runs within 40 s — not a reconcile period later —
losing and duplicating nothing."""
from __future__ import annotations

import time

import pytest
import redis

from swarmgym.config import load_config
from swarmgym.queue import dispatch, keys, liveness
from swarmgym.queue.redis_util import for_config
from swarmgym.testing.localfleet import LocalFleet
from tests.support.queue import app_for, finalized, jsonl_job_ids, send_custom, tiny_jobs_home, wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]  # real Celery worker processes
GOAL = 40.0


def busy(r, jobs: list[str]) -> set[str]:
    """Jobs queued (a message), running (a running entry or a lease) somewhere right now."""
    return (dispatch.queued_job_ids(r) | set(liveness.running(r))
            | {j for j, v in zip(jobs, r.mget([keys.lease(j) for j in jobs])) if v})


def test_a_broker_restart_with_three_campaigns_in_flight_is_back_within_40s_and_loses_nothing(tmp_path, own_redis):
    home = tmp_path / "home"
    home.mkdir()
    # the defaults that matter: a reconcile period of a minute, a long silence window, a long lost grace
    tiny_jobs_home(home, command="sleep 2; echo ok > out.txt", specs=3, broker_url=own_redis.url(0),
                   result_backend=own_redis.url(1), reconcile_secs=60, dead_host_secs=120, lease_ttl=120,
                   lost_grace=900)
    cfg = load_config(home)
    fleet = LocalFleet(home, die_with_parent=True)
    try:
        app = app_for(home)
        fleet.wait_ready(app, [fleet.coordinator(), fleet.worker("mlx", "mlx-a"), fleet.worker("mlx", "mlx-b")],
                         timeout=120)
        cids = ["camp-a", "camp-b", "camp-c"]
        jobs = [j for cid in cids for j in send_custom(home, "mlx", [{}] * 3, cid)]
        r = for_config(cfg)
        wait_until(lambda: len(liveness.running(r)) == 2, 60, 0.1, "both hosts running a job")
        own_redis.restart()  # every queue, lease, counter and plan copy in Redis is gone
        t0 = time.monotonic()

        def back() -> bool:
            try:
                counts = jsonl_job_ids(home)
                return all(counts[j] >= 1 for j in jobs) or not [
                    j for j in jobs if counts[j] == 0 and j not in busy(r, jobs)]
            except redis.RedisError:
                return False
        wait_until(back, 120, 0.25, "every unrecorded job queued or running again")
        took = time.monotonic() - t0
        assert took <= GOAL, f"recovered after {took:.1f}s"
        wait_until(lambda: all(finalized(home, c)() for c in cids), 240, 0.2, "the three campaign records")
        counts = jsonl_job_ids(home)
        assert sorted(k for k in counts if not k.startswith("campaign:")) == sorted(jobs)
        assert all(v == 1 for v in counts.values())  # nothing recorded twice
        log = fleet.procs["coordinator@coord"].log.read_text()
        assert "Redis lost every swarmgym key" in log and "lost with Redis's state" in log  # the reason, logged
    finally:
        fleet.stop_all()
