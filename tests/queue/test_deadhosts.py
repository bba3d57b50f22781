"""Dead and sleeping hosts on real workers: their job is re-sent at once, exactly one record per job (tiny real jobs)."""
from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import psutil
import pytest

from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.queue import deadhosts, keys, liveness, store
from swarmgym.queue.redis_util import for_config
from tests.support.queue import app_for, cli, finalized, jsonl_job_ids, send_custom, tiny_jobs_home, wait_until

pytestmark = pytest.mark.redis
WINDOW = 4
TWO_SECONDS = "sleep 2; echo ok > out.txt"  # a tiny job that runs long enough to be caught mid-job


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


@pytest.mark.slow  # real Celery worker processes
def test_a_host_sleeping_past_the_window_loses_its_job_to_another_and_its_late_result_is_not_recorded_twice(
        home, fleet_factory):
    tiny_jobs_home(home, command=TWO_SECONDS, specs=3, visibility_timeout=172800, dead_host_secs=WINDOW, lease_ttl=3)
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a")]
    app = app_for(home)
    fleet.wait_ready(app, names)
    cid = "sleepy"
    (job,) = send_custom(home, "mlx", [{}], cid)  # a ~2 s swarm run
    r = for_config(load_config(home))
    wait_until(running_on(r, cid, "mlx-a"), 60, 0.1, "the job to start on mlx-a")
    sleeping = tree(fleet.procs["mlx@mlx-a"].popen.pid)
    signal_tree(sleeping, signal.SIGSTOP)  # the Mac went to sleep mid-job
    try:
        wait_until(lambda: deadhosts.lost_jobs_of(r, cid).get(job), WINDOW + 20, 0.2, "the job to be taken from mlx-a")
        # no other host yet: the re-sent job cannot finish (and the campaign drop its lost jobs) before this look
        lost = json.loads(cli(home, "status", cid, "--json", check=False).stdout)["lost"][job]  # status reads counters + lost
        assert lost["host"] == "mlx-a" and lost["silent"] >= WINDOW
        assert lost["shown"].startswith("lost (mlx-a silent") and "→ re-sent" in lost["shown"]
        other = fleet.worker("mlx", "mlx-b")  # starts while `workers` looks
        w = json.loads(cli(home, "workers", "--json", "--timeout", "1", check=False).stdout)
        assert {x["host"]: x["state"] for x in w}.get("mlx-a") == "dead"
        fleet.wait_ready(app, [other])
        wait_until(finalized(home, cid), 90, 0.2, "the campaign record after the re-send")
    finally:
        signal_tree(sleeping, signal.SIGCONT)  # it wakes up and finishes its stale run
    (rec,) = Ledger(home / "ledger").records(kind="session", campaign_id=cid)
    assert rec.host == "mlx-b"
    wait_until(lambda: any(json.loads(x)["job_id"] == job and json.loads(x)["kind"] == "record_job"
                           for x in r.lrange(keys.REFUSED, 0, -1)), 60, 0.2, "the late result to arrive and be refused")
    assert jsonl_job_ids(home)[job] == 1


def test_the_lost_line_names_the_host_and_how_long_it_was_silent_or_that_it_restarted():
    from swarmgym.queue.progress import LostJob, lost_text

    assert lost_text(LostJob(host="h2", silent=130)) == "lost (h2 silent 2m10s) → re-sent"
    assert lost_text(LostJob(host="h2", silent=3, restarted=True)) == "lost (h2 restarted) → re-sent"


@pytest.mark.slow  # real Celery worker processes
def test_a_host_killed_mid_job_is_detected_within_the_window_and_its_old_message_never_comes_back(
        home, fleet_factory):
    tiny_jobs_home(home, command=TWO_SECONDS, specs=3, visibility_timeout=172800, dead_host_secs=WINDOW, lease_ttl=3)
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a"), fleet.worker("mlx", "mlx-b")]
    app = app_for(home)
    fleet.wait_ready(app, names)
    cid = "killed"
    jobs = send_custom(home, "mlx", [{}] * 2, cid)  # one for each host
    r = for_config(load_config(home))
    (victim,) = wait_until(running_on(r, cid, "mlx-a"), 60, 0.1, "a job running on mlx-a")
    signal_tree(tree(fleet.procs["mlx@mlx-a"].popen.pid), signal.SIGKILL)  # power cut: the whole host
    killed_at = time.time()
    lost = wait_until(lambda: deadhosts.lost_jobs_of(r, cid).get(victim), WINDOW + 20, 0.2, "the job re-sent")
    assert lost["host"] == "mlx-a" and lost["ts"] - killed_at < WINDOW + 10  # not the 48 h visibility timeout
    wait_until(finalized(home, cid), 240, 0.2, "the campaign record")
    stale = [m for _, m, _ in deadhosts._unacked(r) if m["headers"].get("task") == keys.RUN_JOB]
    assert not stale  # the stale delivery will not come back after 48 h or at a restart
    fleet.procs.pop("mlx@mlx-a")
    fleet.wait_ready(app, [fleet.worker("mlx", "mlx-a")])  # the host restarts
    time.sleep(2)
    counts = jsonl_job_ids(home)
    assert sorted(k for k in counts if k.startswith(cid + "-")) == sorted(jobs)
    assert all(v == 1 for v in counts.values())
    assert not liveness.running(r)


@pytest.mark.slow  # real Celery worker processes
def test_flower_shows_a_job_that_could_not_run_as_failure_and_a_graded_one_with_its_verdict(home, fleet_factory):
    import httpx

    from swarmgym.campaigns.plan import Campaign, plan_jobs, save_campaign
    from swarmgym.queue import dispatch
    from swarmgym.suitekit.suite import load_suite
    from swarmgym.testing.localredis import free_port
    from tests.support.queue import port_open, procfile_command

    tiny_jobs_home(home, specs=3)
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a")]
    port = free_port()
    flower = fleet.spawn("flower", ["bash", "-c", procfile_command("flower")],
                         {"FLOWER_BASIC_AUTH": "tester:s3cret", "FLOWER_PORT": str(port),
                          "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})  # `celery` of this venv
    app = app_for(home)
    fleet.wait_ready(app, names)
    wait_until(lambda: flower.popen.poll() is None and port_open(port), 180, what="flower listening")
    cfg = load_config(home)
    s = load_suite(cfg.suite, cfg.suites_dir)
    cid = "flower-states"
    good, bad = plan_jobs(s, "light", "mlx", campaign_id=cid, swarm=cfg.swarm.adapter)[:2]
    bad = bad.model_copy(update={"suite_hash": "sha256:not-this-suite", "pin_host": "mlx-a"})  # cannot run there
    camp = Campaign(campaign_id=cid, mode="queue", tier="light", variant="mlx", suite=s.name, suite_hash=s.hash,
                    jobs=[good, bad])
    save_campaign(cfg, camp)
    store.ensure_redis(for_config(cfg), camp)
    dispatch.send_jobs(app, cfg, cid, camp.jobs, fresh=True)
    wait_until(finalized(home, cid), 240, 0.2, "the campaign record")

    def tasks():
        got = httpx.get(f"http://127.0.0.1:{port}/api/tasks", auth=("tester", "s3cret"), timeout=10).json()
        return {t["args"]: t for t in got.values() if t.get("name") == keys.RUN_JOB and cid in (t.get("args") or "")}
    seen = wait_until(lambda: len(tasks()) == 2 and all(t.get("state") in ("SUCCESS", "FAILURE")
                                                          for t in tasks().values()) and tasks(), 60, 0.2, "both in Flower")
    by_job = {(good.job_id if good.job_id + "'" in a else bad.job_id): t for a, t in seen.items()}
    assert by_job[bad.job_id]["state"] == "FAILURE" and "hashes to" in by_job[bad.job_id]["exception"]
    assert by_job[good.job_id]["state"] == "SUCCESS" and "'overall'" in by_job[good.job_id]["result"]
    st = json.loads(cli(home, "status", cid, "--json", check=False).stdout)
    (problem,) = [p for p in st["problems"] if p["job_id"] == bad.job_id]
    assert "hashes to" in problem["reason"]  # status shows the error's reason


@pytest.mark.slow  # real Celery worker processes
def test_a_host_killed_and_restarted_at_once_under_its_name_gets_its_job_back_and_records_it_once(home, fleet_factory):
    # the silence window is long: only the host's new life can free the job within this test
    tiny_jobs_home(home, command="sleep 3; echo ok > out.txt", specs=3, dead_host_secs=120)
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a")]
    app = app_for(home)
    fleet.wait_ready(app, names)
    cid = "reborn"
    jobs = send_custom(home, "mlx", [{}], cid)  # one job: killed mid-run, then run again
    r = for_config(load_config(home))
    (victim,) = wait_until(running_on(r, cid, "mlx-a"), 60, 0.1, "a job running on mlx-a")
    old_life = liveness.lives(r)["mlx-a"]
    signal_tree(tree(fleet.procs["mlx@mlx-a"].popen.pid), signal.SIGKILL)  # the host crashes, job and all
    killed = time.monotonic()
    fleet.procs["mlx@mlx-a"].popen.wait(timeout=10)
    fleet.worker("mlx", "mlx-a")  # Restart=always: the same name again at once
    assert time.monotonic() - killed < 2
    fleet.wait_ready(app, ["mlx@mlx-a"])
    lost = wait_until(lambda: deadhosts.lost_jobs_of(r, cid).get(victim), 60, 0.2, "the stranded job re-sent")
    announced = json.loads(r.hget(keys.HOSTS, "mlx-a"))
    assert announced["life"] != old_life and lost["restarted"] and lost["host"] == "mlx-a"
    assert lost["ts"] - announced["started"] < 10  # as soon as the new life announced itself, not after 120 s
    wait_until(finalized(home, cid), 120, 0.2, "the campaign record")
    counts = jsonl_job_ids(home)
    assert sorted(k for k in counts if k.startswith(cid + "-")) == sorted(jobs)
    assert all(v == 1 for v in counts.values())  # the job ran again and was recorded exactly once
    assert not liveness.running(r)


def test_a_running_job_of_an_earlier_life_is_re_sent_though_its_host_never_went_silent(home, rdb):
    from swarmgym.queue import dispatch
    from tests.support.queue import plan

    cfg = load_config(home)
    camp = plan(home, "lives", 2)
    old, new = camp.jobs
    liveness.register_host(rdb, "h1", {"node": "mlx@h1", "life": "life-2"})  # the host restarted: a new life
    liveness.started(rdb, old.model_dump(mode="json"), "h1", "t-old", life="life-1")  # left by the one before
    liveness.started(rdb, new.model_dump(mode="json"), "h1", "t-new", life="life-2")
    done = deadhosts.sweep(app_for(home), cfg, r=rdb)  # the host beat a moment ago: no silence to wait for
    assert [(d["job_id"], d["restarted"]) for d in done] == [(old.job_id, True)]
    assert rdb.hexists(keys.STALE, "t-old")  # the old delivery never runs to a record
    assert dispatch.queued_job_ids(rdb) == {old.job_id} and set(liveness.running(rdb)) == {new.job_id}
    assert deadhosts.lost_jobs_of(rdb, "lives")[old.job_id]["restarted"]
