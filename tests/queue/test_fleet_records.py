"""Fleet records tell the truth: flags as each host ran them, fresh seeds per repeat, no HIGH alarm
from one job — real Celery workers against a throwaway redis-server on a free port."""
from __future__ import annotations

import os

import pytest
import yaml

from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.queue import dispatch
from swarmgym.testing.localfleet import LocalFleet
from tests.support.queue import SIM_ENV, wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]  # real Celery worker processes


@pytest.fixture
def home(tmp_path, own_redis, monkeypatch):
    for k in [k for k in os.environ if k.startswith("GOOSE_SWARM_")]:
        monkeypatch.delenv(k)  # the enqueuer sets no flag: whatever a record shows came from its host
    h = tmp_path / "home"
    h.mkdir()
    q = {"broker_url": own_redis.url(0), "result_backend": own_redis.url(1), "visibility_timeout": 600,
         "lease_ttl": 4, "sample_hz": 4, "soft_time_limit": 300, "time_limit": 360, "lost_grace": 5,
         "schedule_grace": 1800, "reconcile_secs": 5}
    (h / "config.yaml").write_text(yaml.safe_dump({"suite": "bench-v2", "queue": q, "swarm": {"timeout": 120}}))
    return h


def test_fleet_records_carry_each_hosts_flags_fresh_seeds_and_no_high_alarm_from_one_job(home):
    from swarmgym.queue.app import make_app

    cfg = load_config(home)
    app = make_app(cfg)
    fleet = LocalFleet(home, dict(SIM_ENV), die_with_parent=True)
    try:
        names = [fleet.coordinator(), fleet.worker("mlx", "h1", env={"GOOSE_SWARM_REVIEW": "1"}),
                 fleet.worker("mlx", "h2")]
        fleet.wait_ready(app, names, timeout=120)
        pinned = dispatch.enqueue(app, cfg, tier="smoke", variant="mlx", swarm="sim", pin_host="h1")
        free = dispatch.enqueue(app, cfg, tier="smoke", variant="mlx", swarm="sim")
        ledger = Ledger(cfg.ledger_dir)
        for sent in (pinned, free):
            wait_until(lambda sent=sent: Ledger(cfg.ledger_dir).has_job(f"campaign:{sent.campaign_id}"), 240, 1.0,
                       f"campaign record of {sent.campaign_id}")
    finally:
        fleet.stop_all()

    # the worker started with GOOSE_SWARM_REVIEW=1 ran the swarm with it, and its record says so
    rec = ledger.records(kind="session", campaign_id=pinned.campaign_id)[0]
    assert rec.host == "h1" and rec.overall != "infra"
    assert rec.flags == {"GOOSE_SWARM_REVIEW": "1"} and rec.provenance.flags == {"GOOSE_SWARM_REVIEW": "1"}
    assert rec.provenance.host == "h1" and rec.provenance.adapter == "sim" and rec.provenance.binary_version
    other = ledger.records(kind="session", campaign_id=free.campaign_id)[0]
    assert other.flags == ({"GOOSE_SWARM_REVIEW": "1"} if other.host == "h1" else {})

    # a repeat of the same arm drew fresh seeds, and each plan and record says which
    from swarmgym.campaigns.plan import load_campaign

    seeds = [load_campaign(cfg, s.campaign_id).seed for s in (pinned, free)]
    assert seeds == [0, 1000]
    assert (rec.provenance.seed, other.provenance.seed) == (0, 1000)

    # one job over two hosts: the idle host is no alarm, and functional is a rate
    camp = ledger.find(f"campaign:{free.campaign_id}")[0]
    assert not any(f["severity"] == "high" for f in camp.data["findings"])
    assert camp.overall != "fail"
    assert camp.data["functional_rate"] in (0.0, 1.0) and camp.functional == (camp.data["functional_rate"] == 1.0)
    loads = [r.data.get("host_load") for r in (rec, other)]
    assert all(load and load["samples"] >= 2 and load["span_secs"] > 0 for load in loads)
    assert {tuple(sorted(x)) for x in loads} == {tuple(sorted(loads[0]))}  # one schema


def test_a_campaign_records_device_findings_match_its_jobs_findings(home):
    from swarmgym.campaigns.plan import new_campaign, save_campaign
    from swarmgym.queue import store
    from swarmgym.queue.app import make_app
    from swarmgym.queue.redis_util import for_config

    cfg = load_config(home)
    app = make_app(cfg)
    camp = new_campaign(cfg, "light", "mlx", swarm="sim", mode="queue")
    camp.jobs = [j.model_copy(update={"env": {"SWARMGYM_SIM_FORCE": "starved"}}) for j in camp.jobs]
    save_campaign(cfg, camp)
    fleet = LocalFleet(home, dict(SIM_ENV), die_with_parent=True)
    try:
        names = [fleet.coordinator(), fleet.worker("mlx", "h1", concurrency=2)]
        fleet.wait_ready(app, names, timeout=120)
        store.ensure_redis(for_config(cfg), camp)
        dispatch.send_jobs(app, cfg, camp.campaign_id, camp.jobs, fresh=True)
        wait_until(lambda: Ledger(cfg.ledger_dir).has_job(f"campaign:{camp.campaign_id}"), 300, 1.0,
                   "the campaign record")
    finally:
        fleet.stop_all()
    ledger = Ledger(cfg.ledger_dir)
    jobs = ledger.records(kind="session", campaign_id=camp.campaign_id)
    assert len(jobs) == 3 and all(r.idle_nodes for r in jobs)  # every job starved a device
    rec = ledger.find(f"campaign:{camp.campaign_id}")[0]
    assert rec.data["findings"], "a starved device in every job is never 'findings: []'"
    for row in rec.data["per_device"]:
        expect = sorted(r.job_id for r in jobs if row["device"] in r.idle_nodes)
        assert row["flagged_jobs"] == expect, row
        assert row["share"] == round(len(expect) / row["jobs"], 3)
    flagged = [row for row in rec.data["per_device"] if row["flagged_jobs"]]
    assert flagged and all(any(f["message"].startswith(f"device {row['device']} ") for f in rec.data["findings"])
                           for row in flagged)
