"""Dead and sleeping hosts on real workers: their job is re-sent at once, exactly one record per job."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import psutil
import pytest

from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.queue import deadhosts, liveness, store
from swarmgym.queue.redis_util import for_config
from tests.queue.conftest import app_for, wait_until, write_config
from tests.queue.test_fleet import finalized, jsonl_job_ids, send_custom

pytestmark = pytest.mark.redis
WINDOW = 4


def cli(home, *args):
    return subprocess.run([sys.executable, "-m", "swarmgym", "--root", str(home), *args], capture_output=True,
                          text=True, timeout=120)


def tree(pid: int) -> list[psutil.Process]:
    p = psutil.Process(pid)
    return [p, *p.children(recursive=True)]


def signal_tree(procs: list[psutil.Process], sig: int) -> None:
    for p in procs:
        try:
            p.send_signal(sig)
        except psutil.Error:
            pass


def running_on(r, cid, host):
    return lambda: [j for j, s in store.job_states(r, cid).items()
                    if s.get("state") == "running" and s.get("host") == host]


def test_a_host_sleeping_past_the_window_loses_its_job_to_another_and_its_late_result_is_not_recorded_twice(
        home, fleet_factory):
    write_config(home, visibility_timeout=172800, dead_host_secs=WINDOW, lease_ttl=3)
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a")]
    app = app_for(home)
    fleet.wait_ready(app, names)
    cid = "sleepy"
    (job,) = send_custom(home, "mlx", [{"SWARMGYM_SIM_TIME_SCALE": "0.05"}], cid)  # a ~2 s swarm run
    r = for_config(load_config(home))
    wait_until(running_on(r, cid, "mlx-a"), 60, 0.1, "the job to start on mlx-a")
    sleeping = tree(fleet.procs["mlx@mlx-a"].popen.pid)
    signal_tree(sleeping, signal.SIGSTOP)  # the Mac went to sleep mid-job
    try:
        t0 = time.monotonic()
        fleet.wait_ready(app, [fleet.worker("mlx", "mlx-b")])
        wait_until(lambda: deadhosts.lost_jobs_of(r, cid).get(job), WINDOW + 20, 0.2, "the job to be taken from mlx-a")
        assert time.monotonic() - t0 < WINDOW + 20
        (row,) = json.loads(cli(home, "status", cid, "--json").stdout)["rows"]
        assert row["lost"]["host"] == "mlx-a" and row["lost"]["silent"] >= WINDOW
        if row["state"] != "done":
            assert row["shown"].startswith("lost (mlx-a silent") and "→ re-sent" in row["shown"]
        w = json.loads(cli(home, "workers", "--json", "--timeout", "1").stdout)
        assert {x["host"]: x["state"] for x in w}.get("mlx-a") == "dead"
        wait_until(finalized(home, cid), 90, 0.5, "the campaign record after the re-send")
    finally:
        signal_tree(sleeping, signal.SIGCONT)  # it wakes up and finishes its stale run
    (rec,) = Ledger(home / "ledger").records(kind="session", campaign_id=cid)
    assert rec.host == "mlx-b"
    time.sleep(WINDOW)  # the late result arrives and is not recorded
    assert jsonl_job_ids(home)[job] == 1


def test_the_lost_line_names_the_host_and_how_long_it_was_silent():
    from swarmgym.queue.views import lost_text

    assert lost_text({"host": "h2", "silent": 130}) == "lost (h2 silent 2m10s) → re-sent"


def test_a_host_killed_mid_job_is_detected_within_the_window_and_its_old_message_never_comes_back(
        home, fleet_factory):
    write_config(home, visibility_timeout=172800, dead_host_secs=WINDOW, lease_ttl=3)
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a"), fleet.worker("mlx", "mlx-b")]
    app = app_for(home)
    fleet.wait_ready(app, names)
    cid = "killed"
    jobs = send_custom(home, "mlx", [{"SWARMGYM_SIM_TIME_SCALE": "0.05"}] * 3, cid)
    r = for_config(load_config(home))
    (victim,) = wait_until(running_on(r, cid, "mlx-a"), 60, 0.1, "a job running on mlx-a")
    signal_tree(tree(fleet.procs["mlx@mlx-a"].popen.pid), signal.SIGKILL)  # power cut: the whole host
    killed_at = time.time()
    lost = wait_until(lambda: deadhosts.lost_jobs_of(r, cid).get(victim), WINDOW + 20, 0.2, "the job re-sent")
    assert lost["host"] == "mlx-a" and lost["ts"] - killed_at < WINDOW + 10  # not the 48 h visibility timeout
    wait_until(finalized(home, cid), 240, 0.5, "the campaign record")
    stale = [m for _, m, _ in deadhosts._unacked(r) if m["headers"].get("task") == "swarmgym.run_job"]
    assert not stale  # the stale delivery will not come back after 48 h or at a restart
    fleet.procs.pop("mlx@mlx-a")
    fleet.wait_ready(app, [fleet.worker("mlx", "mlx-a")])  # the host restarts
    time.sleep(2)
    counts = jsonl_job_ids(home)
    assert sorted(k for k in counts if k.startswith(cid + "-")) == sorted(jobs)
    assert all(v == 1 for v in counts.values())
    assert not liveness.running(r)
