"""Issue #16 on a real Redis and real workers: nothing left behind, counters, finalize once, O(1) status."""
from __future__ import annotations

import fnmatch
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from swarmgym.config import load_config
from swarmgym.ledger import Ledger, record_from_result
from swarmgym.models import JobResult
from swarmgym.queue import counters, dispatch, keys
from swarmgym.queue.redis_util import for_config
from tests.support.queue import (
    BACKEND_DB,
    app_for,
    cli,
    client,
    documented_patterns,
    plan,
    result_for,
    send_as_host,
    tiny_jobs_home,
    wait_until,
)

pytestmark = pytest.mark.redis
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # real Celery worker processes
def test_a_finalized_campaign_leaves_only_its_summary_in_redis_and_no_task_results(home, fleet_factory, rdb):
    tiny_jobs_home(home)
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a"), fleet.worker("mlx", "mlx-b")]
    app = app_for(home)
    fleet.wait_ready(app, names)
    cid = cli(home, "enqueue", "--tier", "medium", "--variant", "mlx", "--swarm", "command").stdout.split()[0]
    wait_until(lambda: Ledger(home / "ledger").has_job(f"campaign:{cid}"), 120, 0.2, "the campaign record")
    wait_until(lambda: rdb.hget(keys.campaign(cid), "status") == "finalized", 10, 0.2, "the summary")
    fleet.stop_all()

    assert client(BACKEND_DB).keys("*") == []  # no celery-task-meta-*, no chord counters
    left = rdb.keys("*")
    undocumented = [k for k in left if not any(fnmatch.fnmatchcase(k, p) for p in documented_patterns())]
    assert undocumented == [], left
    mine = sorted(k for k in left if cid in k)
    assert mine == [keys.campaign(cid)]  # no per-job hash, no recent list, no claim
    summary = rdb.hgetall(keys.campaign(cid))
    assert summary["status"] == "finalized" and summary["planned"] == summary["recorded"] == "15"  # medium: at least 15 runs
    assert 0 < rdb.ttl(keys.campaign(cid)) <= load_config(home).queue.summary_ttl
    assert rdb.memory_usage(keys.campaign(cid)) < 1024
    assert cid not in rdb.smembers(keys.CAMPAIGNS)
    assert not [k for k in left if k.startswith(keys.lease(""))]


@pytest.mark.slow  # real Celery worker processes
def test_a_duplicate_delivery_neither_double_counts_nor_completes_the_campaign_early(home, fleet_factory, rdb):
    cid = "dup-camp"
    camp = plan(home, cid, 2)
    first, second = camp.jobs
    app = app_for(home)
    fleet = fleet_factory()
    fleet.wait_ready(app, [fleet.coordinator()])
    for _ in range(3):  # the same result delivered three times (a redelivery, a re-sent job)
        send_as_host(app, fleet, result_for(first))
    app.send_task(keys.RECORD_JOB, args=[{"job_id": second.job_id, "campaign_id": cid, "duplicate": True}],
                  queue="coordinator", ignore_result=True)  # a host's duplicate marker for the other job
    r = for_config(load_config(home))
    wait_until(lambda: rdb.llen("coordinator") == 0 and not rdb.hlen("unacked"), 30, 0.2, "the coordinator")
    snap = counters.snapshot(r, cid)
    assert snap["recorded"] == 1 and snap["planned"] == 2 and snap["status"] == "running"
    assert not Ledger(home / "ledger").has_job(f"campaign:{cid}")
    send_as_host(app, fleet, result_for(second))
    wait_until(lambda: Ledger(home / "ledger").has_job(f"campaign:{cid}"), 30, 0.2, "the campaign record")
    lines = [json.loads(x)["job_id"] for x in (home / "ledger" / "sessions.jsonl").read_text().splitlines()]
    assert sorted(lines) == sorted([first.job_id, second.job_id, f"campaign:{cid}"])


def _finalize_in_subprocess(home, cid) -> subprocess.Popen:
    code = ("import json,sys; from swarmgym.config import load_config; from swarmgym.queue.app import make_app; "
            "from swarmgym.queue.finalizing import finalize; cfg=load_config(sys.argv[1]); "
            "print(json.dumps(finalize(make_app(cfg), cfg, sys.argv[2])))")
    return subprocess.Popen([sys.executable, "-c", code, str(home), cid], stdout=subprocess.PIPE, text=True,
                            cwd=str(REPO))


def _record_all(home, camp) -> None:
    cfg = load_config(home)
    recs = [record_from_result(JobResult.model_validate(result_for(j))) for j in camp.jobs]
    Ledger(cfg.ledger_dir).record_many(recs)
    r = for_config(cfg)
    for j, rec in zip(camp.jobs, recs):
        counters.record(r, camp.campaign_id, j.job_id, host="h1", overall=rec.overall)


def test_finalize_writes_the_campaign_record_exactly_once_when_called_concurrently_and_again(home, rdb):
    from swarmgym.queue.finalizing import finalize

    cid = "fin-camp"
    camp = plan(home, cid, 40)
    cfg = load_config(home)
    app = app_for(home)
    _record_all(home, camp)
    outs: list[dict] = []
    procs = [_finalize_in_subprocess(home, cid) for _ in range(3)]
    threads = [threading.Thread(target=lambda: outs.append(finalize(app, cfg, cid))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p in procs:
        out, _ = p.communicate(timeout=120)
        outs.append(json.loads(out.strip().splitlines()[-1]))
    outs.append(finalize(app, cfg, cid))  # and once more, long after
    assert sum(1 for o in outs if o.get("written")) == 1, outs
    assert all(o["status"] in ("finalized", "busy") for o in outs), outs
    lines = (home / "ledger" / "sessions.jsonl").read_text().splitlines()
    assert sum(1 for x in lines if json.loads(x)["job_id"] == f"campaign:{cid}") == 1
    assert rdb.hget(keys.campaign(cid), "status") == "finalized"


def test_finalize_is_reentrant_after_a_crash_holding_the_claim_or_after_the_record(home, rdb):
    from swarmgym.queue.finalizing import finalize

    cid = "crash-camp"
    camp = plan(home, cid, 5)
    cfg = load_config(home)
    app = app_for(home)
    _record_all(home, camp)
    r = for_config(cfg)
    r.set(keys.campaign_finalizing(cid), "dead-coordinator", ex=2)  # a coordinator died mid-finalize
    assert finalize(app, cfg, cid)["status"] == "busy"
    wait_until(lambda: not r.exists(keys.campaign_finalizing(cid)), 10, 0.2, "the claim to expire")
    assert finalize(app, cfg, cid)["written"] is True
    # a crash after the record but before the summary: the next call only tidies Redis
    cid2 = "crash-camp-2"
    camp2 = plan(home, cid2, 3)
    _record_all(home, camp2)
    from swarmgym.ledger import campaign_record

    Ledger(cfg.ledger_dir).record(campaign_record(cid2, variant="mlx", tier="high", overall="pass",
                                                  data={"planned": 3, "jobs": 3}))
    assert r.exists(keys.campaign_jobs(cid2))
    out = finalize(app, cfg, cid2)
    assert out.get("already") and not r.exists(keys.campaign_jobs(cid2))
    assert r.hget(keys.campaign(cid2), "status") == "finalized"


def _commands(r) -> int:
    return int(r.info("stats")["total_commands_processed"])


@pytest.mark.slow  # records 3,003 jobs
def test_status_is_computed_from_counters_and_costs_the_same_for_3_or_3000_jobs(home, rdb):
    cfg = load_config(home)
    small, big = plan(home, "small", 3), plan(home, "big", 3000)
    _record_all(home, small)
    _record_all(home, big)
    r = for_config(cfg)
    r.hset(keys.campaign("big"), "recorded", 2999)  # counters, not the ledger, are what status reports
    out = cli(home, "status", "big").stdout
    assert "2999/3000 recorded" in out

    from swarmgym.queue import progress

    cost = {}
    for cid in ("small", "big"):
        before = _commands(r)
        progress.tick(r, cid)
        cost[cid] = _commands(r) - before - 1  # minus the INFO call itself
    assert cost["small"] == cost["big"] <= 3

    everything = json.loads(cli(home, "status", "big", "--all", "--json").stdout)
    assert len(everything["jobs"]) == 3000 and {j["state"] for j in everything["jobs"]} == {"done"}
    assert dispatch.recorded_job_ids(cfg, "big") == {j.job_id for j in big.jobs}
