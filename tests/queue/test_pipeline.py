"""Fast tier: campaigns of tiny real jobs through the real Redis, without worker processes.

``swarmgym enqueue`` sends the jobs; the real host task (``swarmgym.run_job``) runs each message it finds
in its queue in a subprocess (the command adapter writes a file, a one-check suite grades it, in the box);
the real coordinator tasks record, count, finalize and rebuild the reports (:mod:`tests.support.tasks`).
The same path through real Celery workers is in ``test_fleet.py`` and ``test_scale.py`` (``slow``).
"""
from __future__ import annotations

import fnmatch

import pytest

from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.queue import keys
from swarmgym.queue.dispatch import enqueue
from tests.support.queue import BACKEND_DB, app_for, cli, client, documented_patterns, tiny_jobs_home
from tests.support.tasks import run_coordinator, run_host

pytestmark = pytest.mark.redis


def test_a_tiny_campaign_is_run_by_the_host_task_recorded_once_finalized_and_leaves_only_its_summary(home, rdb):
    tiny_jobs_home(home, specs=3)
    cid = cli(home, "enqueue", "--tier", "light", "--variant", "mlx", "--swarm", "command").stdout.split()[0]
    assert rdb.llen("variant.mlx") == 3

    shown = run_host(home, "variant.mlx", "mlx-a")
    assert [s["status"] for s in shown] == ["done"] * 3 and all(s["functional"] for s in shown)
    assert {s["host"] for s in shown} == {"mlx-a"} and rdb.llen("coordinator") == 3  # one record_job per job

    ran = run_coordinator(app_for(home), rdb)
    names = [n for n, _ in ran]
    assert names.count(keys.RECORD_JOB) == 3 and keys.REGENERATE_REPORTS in names
    ledger = Ledger(home / "ledger")
    recs = ledger.records(kind="session", campaign_id=cid)
    assert len(recs) == 3 and len({r.job_id for r in recs}) == 3 and {r.host for r in recs} == {"mlx-a"}
    assert all(r.functional and r.provenance.adapter == "command" for r in recs)
    assert all(r.data["artefacts"] == f"runs/{r.session_id}" for r in recs)  # shipped with the record
    assert all((home / "runs" / r.session_id / "session.json").is_file() for r in recs)
    camp = ledger.find(f"campaign:{cid}")[0]
    assert camp.kind == "campaign" and camp.data["jobs"] == 3
    assert "mlx" in (home / "runs" / "BENCHMARK.md").read_text()
    status = cli(home, "status", cid).stdout
    assert "finalized" in status and "3/3 recorded" in status

    assert client(BACKEND_DB).keys("*") == []  # no task results
    left = rdb.keys("*")
    assert [k for k in left if not any(fnmatch.fnmatchcase(k, p) for p in documented_patterns())] == [], left
    assert sorted(k for k in left if cid in k) == [keys.campaign(cid)]
    summary = rdb.hgetall(keys.campaign(cid))
    assert summary["status"] == "finalized" and summary["planned"] == summary["recorded"] == "3"


def test_a_job_that_fails_on_its_host_is_recorded_with_its_reason_and_still_completes_the_campaign(home, rdb):
    tiny_jobs_home(home, command="exit 3")  # the "swarm" writes nothing and fails: graded, not lost
    cid = enqueue(app_for(home), load_config(home), tier="smoke", variant="mlx", swarm="command").campaign_id
    (shown,) = run_host(home, "variant.mlx", "mlx-a")
    assert shown["status"] == "done" and shown["functional"] is False and shown["dimensions"]["checks"] == "fail"
    run_coordinator(app_for(home), rdb)
    (rec,) = Ledger(home / "ledger").records(kind="session", campaign_id=cid)
    assert rec.overall == "fail" and rec.exit_code == 3 and rec.dimensions["swarm"] == "fail"
    assert Ledger(home / "ledger").has_job(f"campaign:{cid}")
    assert rdb.hget(keys.campaign(cid), "status") == "finalized"


def test_a_job_for_another_suite_hash_is_an_infra_record_naming_both_hashes(home, rdb):
    tiny_jobs_home(home)
    cid = enqueue(app_for(home), load_config(home), tier="smoke", variant="mlx", swarm="command").campaign_id
    suite_yaml = home.parent / "suites" / "tiny-v1" / "suite.yaml"
    suite_yaml.write_text(suite_yaml.read_text().replace("write out.txt", "write out.txt now"))  # the host's differs
    (shown,) = run_host(home, "variant.mlx", "mlx-a")
    assert "raised" in shown and "hashes to" in shown["raised"]  # FAILURE in Flower, with the reason
    run_coordinator(app_for(home), rdb)
    (rec,) = Ledger(home / "ledger").records(kind="session", campaign_id=cid)
    assert rec.overall == "infra" and rec.error.type == "CannotRun" and "hashes to" in rec.error.message
    assert load_config(home).suite == "tiny-v1"
