"""A host whose wall clock is 5 minutes off is judged on the broker's clock (issue #33): while it runs jobs it
is never declared dead (before, a clock 5 min behind made every beat look 5 min old), and when it dies its job
is re-sent within the window (before, a clock 5 min ahead kept it "alive" 5 more minutes).  One fleet holds a
host 5 min ahead and one 5 min behind beside a fair one.  The host runs
with its wall clock shifted in the process (:mod:`swarmgym.testing.clockskew`): a real worker whose
``time.time()`` is off; nothing else is."""
from __future__ import annotations

import signal
import time

import pytest

from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.queue import deadhosts, liveness
from swarmgym.queue.redis_util import for_config
from swarmgym.testing.clockskew import skewed_env
from tests.queue.test_deadhosts import running_on, signal_tree, tree
from tests.support.queue import app_for, finalized, jsonl_job_ids, send_custom, tiny_jobs_home, wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]  # real Celery workers

WINDOW = 6
JOB = "sleep 2; echo ok > out.txt"


SKEWS = {"ahead": 300, "behind": -300}  # one fleet, a host of each sign beside a fair one


def test_a_host_with_a_skewed_clock_is_never_declared_dead_wrongly_and_never_strands_its_job(home, fleet_factory):
    tiny_jobs_home(home, command=JOB, specs=3, dead_host_secs=WINDOW, lease_ttl=3)
    fleet = fleet_factory()
    names = [fleet.coordinator(), *(fleet.worker("mlx", h, env=skewed_env(off)) for h, off in SKEWS.items()),
             fleet.worker("mlx", "fair")]
    app = app_for(home)
    fleet.wait_ready(app, names)
    r = for_config(load_config(home))
    cid = "skew"
    jobs = send_custom(home, "mlx", [{}] * 9, cid, tier="medium")  # three rounds of three hosts: the second is killed
    assert len(jobs) == 9

    # they run jobs for a while, beating with a clock 5 minutes off: nobody takes a job from them
    def recorded_by_each_skewed_host():
        hosts = {r.host for r in Ledger(home / "ledger").records(kind="session", campaign_id=cid)}
        return set(SKEWS) <= hosts
    wait_until(recorded_by_each_skewed_host, 180, 0.3, "a job recorded by each skewed host")
    for host in SKEWS:
        host_view = liveness.hosts(r, WINDOW)[host]
        assert not host_view["dead"] and host_view["silent"] < WINDOW, (host, host_view)
    assert deadhosts.lost_jobs_of(r, cid) == {}, "a job was taken from a host that never stopped beating"

    killed = {}
    for host in SKEWS:  # each dies mid-job, one after the other
        (victim,) = wait_until(running_on(r, cid, host), 120, 0.1, f"a job running on {host}")
        assert set(deadhosts.lost_jobs_of(r, cid)) <= set(killed)
        signal_tree(tree(fleet.procs.pop(f"mlx@{host}").popen.pid), signal.SIGKILL)
        killed[victim] = (host, time.monotonic())
    for victim, (host, killed_at) in killed.items():
        wait_until(lambda v=victim: deadhosts.lost_jobs_of(r, cid).get(v), WINDOW + 30, 0.2, f"{host}'s job re-sent")
        took = time.monotonic() - killed_at
        assert took < WINDOW + 30, (host, took)  # not 5 minutes later
    victims = set(killed)

    wait_until(finalized(home, cid), 240, 0.3, "the campaign record")
    counts = jsonl_job_ids(home)
    assert sorted(k for k in counts if k.startswith(cid)) == sorted(jobs)
    assert all(v == 1 for v in counts.values())  # nothing recorded twice
    assert set(deadhosts.lost_jobs_of(r, cid)) <= victims  # the only jobs ever taken were the dead hosts'
