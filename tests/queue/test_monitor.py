"""Campaign-level distribution: per device and per host against weighted fair share."""
from __future__ import annotations

import time

from swarmgym.models import LedgerRecord
from swarmgym.queue.monitor import campaign_health, campaign_overall, idle_names


def rec(i, host, per_device, cpu=None, pool=None):
    data = {}
    if cpu is not None:
        data["host_load"] = {"cpu_mean": cpu}
    if pool:
        data["pool"] = pool
    return LedgerRecord(session_id=f"s{i}", job_id=f"c-{i:03d}", campaign_id="c", mode="benchmark", spec="crud",
                        app_slug="invtrack", variant="mlx", tier="medium", host=host, overall="pass",
                        functional=True, per_device=per_device, ts=time.time(), data=data)


POOL = [{"id": "big", "weight": 2}, {"id": "small", "weight": 1}, {"id": "dead", "weight": 1}]


def test_a_host_that_got_no_job_is_starved_and_a_device_with_no_task_too():
    recs = [rec(i, "mlx-a", {"big": 4, "small": 2}, cpu=80.0, pool=POOL) for i in range(6)]
    findings, data = campaign_health(recs, {"mlx-a": 1.0, "mlx-b": 1.0})
    msgs = [f.message for f in findings]
    assert any(m.startswith("host mlx-b starved") for m in msgs)
    assert any(m.startswith("device dead starved") for m in msgs)
    assert campaign_overall(findings) == "fail" and data["unbalanced"]
    assert set(idle_names(data)) == {"mlx-b", "dead"}


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
