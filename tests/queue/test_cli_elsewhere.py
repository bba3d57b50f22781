"""The fleet commands from a machine that shares no disk with the coordinator (an operator's laptop with only
the broker URL): every command runs the CLI in a home of its own, never the coordinator's or a host's."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from swarmgym.campaigns.plan import load_campaign
from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.queue import dispatch
from swarmgym.queue.reconciling import reconcile_all
from swarmgym.queue.redis_util import for_config
from tests.support.queue import app_for, finalized, jsonl_job_ids, tiny_jobs_home, wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]  # real Celery worker processes


@pytest.fixture
def homes(tmp_path, home):
    """(coordinator's home, laptop's home, host's home): three folders, each with its own copy of the suite."""
    laptop, host = tmp_path / "laptop" / "home", tmp_path / "host" / "home"
    for h in (home, laptop, host):
        h.mkdir(parents=True, exist_ok=True)
        tiny_jobs_home(h, command="sleep 0.5; echo ok > out.txt", specs=3)
    return home, laptop, host


def laptop_cli(laptop, *args, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOSE_SWARM_", "SWARMGYM_"))}
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(laptop), *args], capture_output=True,
                          text=True, timeout=timeout, env=env)


def test_cancel_and_resume_from_another_home_change_the_coordinators_plan(homes, fleet_factory):
    home, laptop, host_home = homes
    fleet = fleet_factory()
    app = app_for(home)
    fleet.wait_ready(app, [fleet.coordinator()])  # no host yet: the jobs wait in their queue
    cid = laptop_cli(laptop, "enqueue", "--tier", "light", "--variant", "mlx").stdout.split()[0]
    c = laptop_cli(laptop, "cancel", cid)
    assert c.returncode == 0 and "cancelled; 3 job(s) without a record revoked" in c.stdout, c.stderr
    cfg = load_config(home)
    assert load_campaign(cfg, cid).cancelled  # the coordinator's own copy of the plan says so
    assert reconcile_all(app, cfg, grace=0)["requeued"] == {}  # so its reconcile never sends the jobs again
    fleet.wait_ready(app, [fleet.worker("mlx", "mlx-a", home=host_home)])
    wait_until(lambda: not dispatch.queued_job_ids(for_config(cfg)), 30, 0.2, "the revoked jobs to drain")
    assert Ledger(home / "ledger").job_ids(cid) == []
    st = json.loads(laptop_cli(laptop, "status", cid, "--json").stdout)
    assert st["status"] == "cancelled" and st["recorded"] == 0 and st["planned"] == 3

    r = laptop_cli(laptop, "resume", cid, "--wait")
    assert r.returncode == 0 and f"{cid}: re-sent 3 job(s)" in r.stdout, r.stderr
    assert finalized(home, cid)() and not load_campaign(cfg, cid).cancelled
    counts = jsonl_job_ids(home)
    assert sorted(k for k in counts if k.startswith(cid + "-")) == [f"{cid}-{i:03d}" for i in range(3)]
    assert all(v == 1 for v in counts.values())
    st = json.loads(laptop_cli(laptop, "status", cid, "--json", "--all").stdout)
    assert st["status"] == "finalized" and st["campaign_record"]["job_id"] == f"campaign:{cid}"
    assert [j["state"] for j in st["jobs"]] == ["done"] * 3 and all(j["wall_secs"] for j in st["jobs"])
    assert not (laptop / "ledger" / "sessions.jsonl").exists()  # nothing was read from or written to it


def test_compare_over_the_fleet_from_another_home_reads_the_coordinators_records(homes, fleet_factory):
    home, laptop, host_home = homes
    fleet = fleet_factory()
    app = app_for(home)
    fleet.wait_ready(app, [fleet.coordinator(), fleet.worker("mlx", "mlx-a", home=host_home, concurrency=2)])
    p = laptop_cli(laptop, "compare", "mlx", "mlx:GOOSE_SWARM_REVIEW=1", "--fleet", "--max-runs", "6", "--json",
                   "--round-timeout", "240", timeout=400)
    assert p.returncode == 0, p.stderr  # it used to wait forever, watching its own empty ledger
    out = json.loads(p.stdout)
    assert out["runs"] == 6 and out["rounds"] == 1
    cids = [f"{out['compare_id']}-r01-a", f"{out['compare_id']}-r01-b"]
    recs = Ledger(home / "ledger").records(kind="session")
    assert sorted(r.campaign_id for r in recs) == sorted(cids * 3)
    assert not (laptop / "ledger" / "sessions.jsonl").exists()
    state = json.loads((laptop / "runs" / "compares" / f"{out['compare_id']}.json").read_text())
    assert len(state["rounds"][0]["pairs"]) == 3
    assert all(p["a"] is not None and p["b"] is not None for p in state["rounds"][0]["pairs"])  # outcomes read back
    wait_until(lambda: all(finalized(home, c)() for c in cids), 120, 0.2, "both round campaigns finalized")
    listed = laptop_cli(laptop, "status", "--json")
    assert listed.returncode == 0, listed.stderr
    by_id = {s["campaign_id"]: s for s in json.loads(listed.stdout)}
    assert all(by_id[c]["status"] == "finalized" for c in cids)
