"""Campaign-level distribution: devices judged per job then aggregated, hosts by jobs run."""
from __future__ import annotations

import time

from swarmgym.campaigns.monitor import campaign_health, campaign_overall, idle_names
from swarmgym.ledger import campaign_record
from swarmgym.models import LedgerRecord


def rec(i, host, per_device, cpu=None, pool=None, functional=True, overall="pass"):
    data = {}
    if cpu is not None:
        data["host_load"] = {"cpu_mean": cpu}
    if pool:
        data["pool"] = pool
    return LedgerRecord(session_id=f"s{i}", job_id=f"c-{i:03d}", campaign_id="c", mode="benchmark", spec="crud",
                        app_slug="invtrack", variant="mlx", tier="medium", host=host, overall=overall,
                        functional=functional, per_device=per_device, ts=time.time(), data=data)


POOL = [{"id": "big", "weight": 2}, {"id": "small", "weight": 1}, {"id": "dead", "weight": 1}]


def test_a_host_that_got_no_job_is_starved_and_a_device_with_no_task_too():
    recs = [rec(i, "mlx-a", {"big": 4, "small": 2}, cpu=80.0, pool=POOL) for i in range(6)]
    findings, data = campaign_health(recs, {"mlx-a": 1.0, "mlx-b": 1.0})
    msgs = [f.message for f in findings]
    assert any(m.startswith("host mlx-b starved") for m in msgs)
    assert any(m.startswith("device dead starved") for m in msgs)
    assert campaign_overall(findings) == "fail" and data["unbalanced"]
    assert set(idle_names(data)) == {"mlx-b", "dead"}


def test_a_device_starved_in_every_job_is_reported_with_its_share_and_the_job_ids():
    # summed over the campaign "dead" would look fine next to big's totals; per job it starved each time
    recs = [rec(i, "mlx-a" if i % 2 else "mlx-b", {"big": 3, "small": 2, "dead": 0}, pool=POOL) for i in range(4)]
    findings, data = campaign_health(recs, {"mlx-a": 1.0, "mlx-b": 1.0})
    dead = next(f for f in findings if f.message.startswith("device dead"))
    assert dead.severity == "high" and "starved in 4 of 4 job(s) (100%)" in dead.message
    assert all(f"c-{i:03d}" in dead.message for i in range(4))
    row = next(r for r in data["per_device"] if r["device"] == "dead")
    assert row["share"] == 1.0 and row["flagged_jobs"] == [f"c-{i:03d}" for i in range(4)]
    assert campaign_overall(findings) == "fail"


def test_a_one_job_campaign_over_two_hosts_raises_no_high_alarm():
    recs = [rec(0, "mlx-a", {"big": 3, "small": 2, "dead": 0}, pool=POOL)]
    findings, data = campaign_health(recs, {"mlx-a": 1.0, "mlx-b": 1.0})
    assert not any(f.severity == "high" for f in findings)
    assert campaign_overall(findings) != "fail"
    assert {h["device"]: h["state"] for h in data["per_host"]}["mlx-b"] == "ok"  # 1 job cannot go to 2 hosts


def test_a_heavy_device_on_a_small_plan_is_not_underused():
    # by weight ratio heavy's "share" would be 8/11 of 8 tasks = 5.8 and 2 would look underused; but a
    # weight is a cap on tasks in flight, and an 8-task plan over 4 devices gives each about 2
    pool = [{"id": "heavy", "weight": 8}, {"id": "a", "weight": 1}, {"id": "b", "weight": 1}, {"id": "c", "weight": 1}]
    recs = [rec(i, "mlx-a", {"heavy": 2, "a": 2, "b": 2, "c": 2}, pool=pool) for i in range(4)]
    findings, data = campaign_health(recs, {"mlx-a": 1.0})
    assert findings == [] and not data["unbalanced"]


def test_campaign_functional_is_a_rate_and_infra_jobs_are_left_out_of_it():
    recs = [rec(i, "mlx-a", {"big": 2}, functional=False, overall="fail") for i in range(3)]
    recs.append(rec(3, "mlx-a", {}, functional=False, overall="infra"))
    findings, data = campaign_health(recs, {"mlx-a": 1.0})
    assert data["functional_rate"] == 0.0 and data["functional_jobs"] == 0 and data["infra_jobs"] == 1
    r = campaign_record("c", variant="mlx", tier="light", overall=campaign_overall(findings), data=data,
                        functional=data["functional_rate"] == 1.0)
    assert r.functional is False and r.data["functional_rate"] == 0.0


def test_an_underused_host_is_confirmed_idle_only_when_its_load_samples_were_idle():
    recs = ([rec(i, "mlx-a", {"big": 2}, cpu=90.0) for i in range(9)]
            + [rec(9, "mlx-b", {"big": 2}, cpu=3.0)])
    findings, data = campaign_health(recs, {"mlx-a": 1.0, "mlx-b": 1.0})
    hosts = {h["device"]: h for h in data["per_host"]}
    assert hosts["mlx-b"]["state"] == "underused" and hosts["mlx-b"]["confirmed_idle"] is True
    assert hosts["mlx-a"]["state"] == "ok" and hosts["mlx-a"]["confirmed_idle"] is False
    assert any("mlx-b underused" in f.message and "confirmed" in f.message for f in findings)
    busy = [rec(i, "mlx-a", {"big": 2}, cpu=90.0) for i in range(9)] + [rec(9, "mlx-b", {"big": 2}, cpu=95.0)]
    f2, d2 = campaign_health(busy, {"mlx-a": 1.0, "mlx-b": 1.0})
    assert not any("confirmed" in f.message for f in f2)


def test_an_even_spread_is_balanced():
    recs = [rec(i, "mlx-a" if i % 2 else "mlx-b", {"big": 2, "small": 1, "dead": 1}, pool=POOL) for i in range(10)]
    findings, data = campaign_health(recs, {"mlx-a": 1.0, "mlx-b": 1.0})
    assert findings == [] and campaign_overall(findings) == "pass" and not data["unbalanced"]
