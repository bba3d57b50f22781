"""A host whose wall clock is 5 minutes off is judged on the broker's clock (issue #33): while it runs jobs it
is never declared dead (before, a clock 5 min behind made every beat look 5 min old), and when it dies its job
is re-sent within the window (before, a clock 5 min ahead kept it "alive" 5 more minutes).  The host runs
with its wall clock shifted in the process (:mod:`swarmgym.testing.clockskew`): a real worker whose
``time.time()`` is off; nothing else is."""
from __future__ import annotations

import signal
import time

import pytest

from swarmgym.config import load_config
from swarmgym.queue import deadhosts, liveness
from swarmgym.queue.redis_util import for_config
from swarmgym.testing.clockskew import skewed_env
from tests.queue.test_deadhosts import running_on, signal_tree, tree
from tests.support.queue import app_for, finalized, jsonl_job_ids, send_custom, tiny_jobs_home, wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]  # real Celery workers

WINDOW = 6
JOB = "sleep 3; echo ok > out.txt"


@pytest.mark.parametrize("offset", [300, -300])
def test_a_host_with_a_skewed_clock_is_never_declared_dead_wrongly_and_never_strands_its_job(home, fleet_factory,
                                                                                           offset):
    tiny_jobs_home(home, command=JOB, specs=3, dead_host_secs=WINDOW, lease_ttl=3)
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "skewed", env=skewed_env(offset)), fleet.worker("mlx", "fair")]
    app = app_for(home)
    fleet.wait_ready(app, names)
    r = for_config(load_config(home))
    cid = "skew"
    jobs = send_custom(home, "mlx", [{}] * 8, cid, tier="medium")
    assert len(jobs) == 8

    # it runs jobs for a while, beating with a clock 5 minutes off: nobody takes a job from it
    wait_until(lambda: sum(1 for k in jsonl_job_ids(home) if k.startswith(cid)) >= 3, 180, 0.3, "three jobs recorded")
    host_view = liveness.hosts(r, WINDOW)["skewed"]
    assert not host_view["dead"] and host_view["silent"] < WINDOW, host_view
    assert deadhosts.lost_jobs_of(r, cid) == {}, "a job was taken from a host that never stopped beating"

    (victim,) = wait_until(running_on(r, cid, "skewed"), 120, 0.1, "a job running on the skewed host")
    assert deadhosts.lost_jobs_of(r, cid) == {}
    signal_tree(tree(fleet.procs["mlx@skewed"].popen.pid), signal.SIGKILL)  # it dies mid-job
    killed_at = time.monotonic()
    wait_until(lambda: deadhosts.lost_jobs_of(r, cid).get(victim), WINDOW + 30, 0.2, "its job re-sent")
    took = time.monotonic() - killed_at
    assert took < WINDOW + 30, took  # not 5 minutes later

    wait_until(finalized(home, cid), 240, 0.5, "the campaign record")
    counts = jsonl_job_ids(home)
    assert sorted(k for k in counts if k.startswith(cid)) == sorted(jobs)
    assert all(v == 1 for v in counts.values())  # nothing recorded twice
    assert set(deadhosts.lost_jobs_of(r, cid)) <= {victim}  # the only job ever taken was the dead host's
    fleet.procs.pop("mlx@skewed")
