"""A campaign over real worker processes on the real Redis: routing, chord, Flower, SIGKILL, flush, hangs.

Tests about the queue run tiny real jobs (:func:`tests.support.queue.tiny_jobs_home`); those about the
swarm's processes (kill, limits, warm shutdown) run the simulator."""
from __future__ import annotations

import subprocess
import sys
import time

import httpx
import psutil
import pytest

from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.queue import keys, store
from swarmgym.queue.redis_util import for_config
from swarmgym.testing.localredis import free_port
from tests.support.queue import (
    BACKEND_DB,
    app_for,
    cli,
    client,
    finalized,
    jsonl_job_ids,
    port_open,
    procfile_command,
    send_custom,
    sims_under,
    tiny_jobs_home,
    wait_until,
    write_config,
)

pytestmark = [pytest.mark.redis, pytest.mark.slow]  # real Celery worker processes


def test_medium_campaign_runs_only_on_its_variant_hosts_and_its_completing_record_writes_the_benchmark(home, fleet_factory):
    tiny_jobs_home(home, command="sleep 0.5; echo ok > out.txt", specs=3)  # medium: 15 tiny jobs
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a"), fleet.worker("mlx", "mlx-b"),
             fleet.worker("gguf", "gguf-a")]
    port = free_port()
    flower = fleet.spawn("flower", ["bash", "-c", procfile_command("flower")],
                         {"FLOWER_BASIC_AUTH": "tester:s3cret", "FLOWER_PORT": str(port)})
    app = app_for(home)
    fleet.wait_ready(app, names)
    wait_until(lambda: flower.popen.poll() is None and port_open(port), 30, what="flower listening")

    sends = [subprocess.Popen([sys.executable, "-m", "swarmgym", "--home", str(home), "enqueue", "--tier", tier,
                               "--variant", variant], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for tier, variant in (("medium", "mlx"), ("smoke", "gguf"))]  # two campaigns sent side by side
    outs = [p.communicate(timeout=120) for p in sends]
    assert all(p.returncode == 0 for p in sends), outs
    cid, gguf_cid = (out.split()[0] for out, _ in outs)
    assert cid.startswith("q-mlx-medium-") and gguf_cid != cid

    wait_until(finalized(home, cid), 200, 0.2, "the mlx campaign record")
    wait_until(finalized(home, gguf_cid), 60, 0.2, "the gguf campaign record")
    ledger = Ledger(home / "ledger")
    recs = ledger.records(kind="session", campaign_id=cid)
    assert len(recs) == 15 and len({r.job_id for r in recs}) == 15
    assert {r.host for r in recs} == {"mlx-a", "mlx-b"}  # never the gguf host
    assert all(r.data["artefacts"] == f"runs/{r.session_id}" for r in recs)  # shipped to the coordinator
    assert all((home / "runs" / r.session_id / "session.json").is_file() for r in recs)
    assert [r.host for r in ledger.records(kind="session", campaign_id=gguf_cid)] == ["gguf-a"]
    camp_rec = ledger.find(f"campaign:{cid}")[0]
    assert camp_rec.kind == "campaign" and camp_rec.data["jobs"] == 15
    hosts = {h["device"]: h for h in camp_rec.data["per_host"]}
    assert set(hosts) >= {"mlx-a", "mlx-b"} and sum(h["dispatched"] for h in hosts.values()) == 15
    bench = home / "runs" / "BENCHMARK.md"  # rebuilt by a task of its own after finalize
    csv = home / "runs" / "benchmark-runs.csv"  # written after BENCHMARK.md: wait for both
    wait_until(lambda: bench.is_file() and "mlx" in bench.read_text() and csv.is_file(), 60, 0.2,
               "BENCHMARK.md and benchmark-runs.csv")

    # Flower saw the campaign's tasks, including the record that completed it and finalized it
    api = f"http://127.0.0.1:{port}/api/tasks"
    assert httpx.get(api, timeout=10).status_code == 401
    tasks = httpx.get(api, auth=("tester", "s3cret"), timeout=10).json()
    jobs = [t for t in tasks.values() if t.get("name") == keys.RUN_JOB and cid in (t.get("args") or "")]
    assert len(jobs) >= 15
    finals = [t for t in tasks.values() if t.get("name") in (keys.RECORD_JOB, keys.FINALIZE_CAMPAIGN)
              and cid in (t.get("result") or "") and "'finalized'" in (t.get("result") or "")]
    assert any(t.get("state") == "SUCCESS" for t in finals), [t.get("result") for t in tasks.values()][:5]

    # status and workers side by side (workers waits out its replies' timeout three times over)
    status, workers = [subprocess.Popen([sys.executable, "-m", "swarmgym", "--home", str(home), *args],
                                        stdout=subprocess.PIPE, text=True) for args in (["status", cid], ["workers"])]
    assert "finalized" in (out := status.communicate(timeout=120)[0]) and "15/15 recorded" in out
    assert "mlx@mlx-a" in (out := workers.communicate(timeout=120)[0]) and "variant.gguf" in out
    assert status.returncode == workers.returncode == 0


def test_sigkill_of_a_host_mid_job_still_finishes_the_campaign_once_per_job_without_orphans(home, fleet_factory):
    write_config(home, visibility_timeout=10)
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a"), fleet.worker("mlx", "mlx-b")]
    app = app_for(home)
    fleet.wait_ready(app, names)
    cid = cli(home, "enqueue", "--tier", "light", "--variant", "mlx").stdout.split()[0]
    r = for_config(load_config(home))

    def running_on_a():
        states = store.job_states(r, cid)
        return [j for j, s in states.items() if s.get("state") == "running" and s.get("host") == "mlx-a"] \
            and sims_under(home)
    wait_until(running_on_a, 60, 0.2, "a job running on mlx-a")
    victims = [p.pid for p in sims_under(home)]
    fleet.kill("mlx@mlx-a")
    wait_until(finalized(home, cid), 150, 0.2, "the campaign record after the kill")
    counts = jsonl_job_ids(home)
    campaign_jobs = {k: v for k, v in counts.items() if k.startswith(cid)}
    assert len(campaign_jobs) == 3 and set(campaign_jobs.values()) == {1}, counts
    wait_until(lambda: not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
                               for p in victims), 10, 0.2, "the killed host's swarm to be gone")
    # a job re-delivered past the 10 s visibility timeout on a loaded machine may still be running on mlx-b
    # (its result is refused as a duplicate): it ends; an orphan of mlx-a never would
    wait_until(lambda: not sims_under(home), 60, 0.2, "every swarm of the campaign to end")


def test_redis_flushed_mid_campaign_is_finished_by_resume_without_losing_a_job(home, fleet_factory):
    tiny_jobs_home(home, command="sleep 2; echo ok > out.txt", specs=2)  # light: 2 tiny jobs, long enough to flush mid-job
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a")]
    app = app_for(home)
    fleet.wait_ready(app, names)
    cid = cli(home, "enqueue", "--tier", "light", "--variant", "mlx").stdout.split()[0]
    r = for_config(load_config(home))
    wait_until(lambda: any(s.get("state") == "running" for s in store.job_states(r, cid).values()), 60, 0.2,
               "the first job to start")
    r.flushdb()
    client(BACKEND_DB).flushdb()
    time.sleep(1.0)
    assert not finalized(home, cid)()
    out = cli(home, "resume", cid, "--wait").stdout  # --wait returns once the campaign is finalized
    assert "re-sent" in out
    assert finalized(home, cid)()
    counts = jsonl_job_ids(home)  # the job running at the flush and the one waiting in the flushed queue
    assert sorted(k for k in counts if k.startswith(cid + "-")) == [f"{cid}-{i:03d}" for i in range(2)]
    assert all(v == 1 for v in counts.values())


def test_warm_shutdown_kills_the_running_swarm_and_requeues_its_job_for_another_host(home, fleet_factory):
    import signal

    fleet = fleet_factory()
    # mlx-a's simulated runs are slow (3 s a simulated minute: a run, or its swarm timeout, takes over a minute):
    # had its warm shutdown waited for the run, mlx-a would have recorded the job; mlx-b's runs are quick
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a", env={"SWARMGYM_SIM_TIME_SCALE": "3"})]
    app = app_for(home)
    fleet.wait_ready(app, names)
    cid = "warm-test"
    (job,) = send_custom(home, "mlx", [{}], cid)
    r = for_config(load_config(home))

    def swarm_runs():  # the run itself, in its box (not the `--version` probe before a host's first job)
        return [p.pid for p in sims_under(home) if "run" in p.cmdline()]
    wait_until(lambda: store.job_states(r, cid).get(job, {}).get("state") == "running" and swarm_runs(),
               60, 0.2, "the job's swarm to run on mlx-a")
    victims = swarm_runs()
    fleet.procs["mlx@mlx-a"].popen.send_signal(signal.SIGTERM)  # what systemd/launchd send to the main process
    other = fleet.worker("mlx", "mlx-b")  # starts while mlx-a drains
    fleet.procs["mlx@mlx-a"].popen.wait(timeout=30)  # long before its swarm run would end
    assert not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in victims)
    fleet.wait_ready(app, [other])
    wait_until(finalized(home, cid), 90, 0.2, "the requeued job to finish on mlx-b")
    (rec,) = Ledger(home / "ledger").records(kind="session", campaign_id=cid)  # mlx-a recorded no failure
    assert rec.host == "mlx-b" and jsonl_job_ids(home)[job] == 1
