"""Reconcile re-sends lost jobs and finalizes; cancel stops a campaign's unstarted jobs (real workers, tiny jobs)."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from swarmgym.campaigns.plan import Campaign, load_campaign, plan_jobs, save_campaign
from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.queue import dispatch, store
from swarmgym.queue.reconciling import FLUSH_SETTLE, reconcile_all
from swarmgym.queue.redis_util import for_config
from swarmgym.suitekit.suite import load_suite
from tests.support.queue import app_for, tiny_jobs_home, wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]  # real Celery worker processes


def test_reconcile_resends_jobs_nobody_has_and_the_campaign_then_finalizes(home, fleet_factory):
    tiny_jobs_home(home, specs=3, artefact_cap_mb=0)  # nothing is shipped: the record must say where the run folder is
    cfg = load_config(home)
    s = load_suite(cfg.suite, cfg.suites_dir)
    cid = "lost-camp"
    jobs = plan_jobs(s, "light", "mlx", campaign_id=cid, swarm="command")[:2]
    camp = Campaign(campaign_id=cid, mode="queue", tier="light", variant="mlx", suite=s.name, suite_hash=s.hash,
                    jobs=jobs, created=time.time() - 3600)
    save_campaign(cfg, camp)  # planned, but its messages never reached Redis (lost)
    app = app_for(home)
    young = Campaign(**{**camp.model_dump(), "campaign_id": "young", "created": time.time(),
                        "jobs": plan_jobs(s, "smoke", "mlx", campaign_id="young", swarm="command")})
    save_campaign(cfg, young)
    assert reconcile_all(app, cfg, grace=600)["requeued"] == {}  # Redis has lost them: a moment for leases
    time.sleep(FLUSH_SETTLE + 0.5)
    out = reconcile_all(app, cfg, grace=600)
    assert out["requeued"] == {cid: [j.job_id for j in jobs]}  # the young campaign is left alone
    assert dispatch.queued_job_ids(for_config(cfg)) == {j.job_id for j in jobs}
    assert reconcile_all(app, cfg, grace=600)["requeued"] == {}  # queued now: not lost twice
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a")]
    fleet.wait_ready(app, names)
    wait_until(lambda: Ledger(home / "ledger").has_job(f"campaign:{cid}"), 240, 0.2, "the reconciled campaign")
    recs = Ledger(home / "ledger").records(kind="session", campaign_id=cid)
    assert sorted(r.job_id for r in recs) == [j.job_id for j in jobs]
    for r in recs:
        host, _, path = r.data["artefacts"].partition(":")
        assert host == "mlx-a" and path.endswith(r.session_id) and (home / "runs" / r.session_id).is_dir()


def test_cancel_revokes_unstarted_jobs_and_marks_the_coordinators_plan(home, fleet_factory):
    tiny_jobs_home(home, specs=3)  # light: 3 tiny jobs
    fleet = fleet_factory()
    app = app_for(home)
    fleet.wait_ready(app, [fleet.coordinator()])  # no host yet: every job waits in its queue
    p = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "enqueue", "--tier", "light",
                        "--variant", "mlx"], capture_output=True, text=True, timeout=60)
    cid = p.stdout.split()[0]
    c = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "cancel", cid],
                       capture_output=True, text=True, timeout=60)
    assert c.returncode == 0 and "cancelled; 3 job(s) without a record revoked" in c.stdout, c.stderr
    cfg = load_config(home)
    assert load_campaign(cfg, cid).cancelled  # the coordinator's plan (this home is the coordinator's)
    assert store.redis_status(for_config(cfg), cid)["status"] == "cancelled"
    fleet.wait_ready(app, [fleet.worker("mlx", "mlx-a")])
    wait_until(lambda: not dispatch.queued_job_ids(for_config(cfg)), 30, 0.2, "the queue to drain")
    assert reconcile_all(app, cfg, grace=0)["requeued"] == {}  # reconcile never sends a cancelled campaign again
    assert Ledger(home / "ledger").job_ids(cid) == []
    st = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "status", cid],
                        capture_output=True, text=True, timeout=60)
    assert "cancelled" in st.stdout and "0/3 recorded" in st.stdout
