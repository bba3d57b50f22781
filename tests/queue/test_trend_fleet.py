"""Issue #22 on the fleet: the coordinator's finalize stores the change in the campaign record, ``status``
shows it and the schedule's ``on_change`` runs on the coordinator (real Redis, real Celery workers)."""
from __future__ import annotations

import json

import pytest
import yaml

from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.queue import dispatch
from tests.support.queue import TINY_SUITE, app_for, cli, wait_until, write_config
from tests.support.trend import BROKEN, WORKS

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def configure(home, command) -> None:
    suites = home.parent / "suites"
    (suites / "tiny-v1").mkdir(parents=True, exist_ok=True)
    (suites / "tiny-v1" / "suite.yaml").write_text(yaml.safe_dump(TINY_SUITE))
    write_config(home, extra={
        "suites_dir": str(suites), "suite": "tiny-v1",
        "swarm": {"adapter": "command", "command": command, "timeout": 60},
        "schedules": [{"name": "nightly", "cron": "0 2 * * *", "tier": "medium", "variant": "mlx",
                       "on_change": ["sh", "-c", "cat > alarm.json"]}]})


def night(home, app, cid: str):
    """What beat's scheduled_campaign does for a window: enqueue the schedule's campaign under its id."""
    cfg = load_config(home)
    dispatch.enqueue(app, cfg, tier="medium", variant="mlx", swarm="command", campaign_id=cid, schedule="nightly")
    wait_until(lambda: Ledger(home / "ledger").has_job(f"campaign:{cid}"), 120, 0.5, f"the campaign record of {cid}")
    return Ledger(home / "ledger").find(f"campaign:{cid}")[0]


def test_the_coordinator_stores_the_change_status_shows_it_and_the_alarm_runs(home, fleet_factory):
    configure(home, WORKS)
    fleet = fleet_factory()
    names = [fleet.coordinator(), fleet.worker("mlx", "mlx-a")]
    app = app_for(home)
    fleet.wait_ready(app, names)

    first = night(home, app, "sched-nightly-202612010200")
    assert first.change.verdict == "not comparable" and first.change.schedule == "nightly"
    fleet.stop("mlx@mlx-a")
    configure(home, BROKEN)                         # the host gets a new build
    fleet.wait_ready(app, [fleet.worker("mlx", "mlx-a")])
    second = night(home, app, "sched-nightly-202612020200")

    ch = second.change
    assert ch.verdict == "regressed" and ch.baseline == ["sched-nightly-202612010200"]
    assert (ch.overall.passes, ch.overall.runs, ch.overall.base_passes) == (0, 15, 15)
    wait_until(lambda: (home / "alarm.json").is_file() and (home / "alarm.json").read_text(), 30, 0.2, "the alarm")
    sent = json.loads((home / "alarm.json").read_text())
    assert sent["campaign_id"] == "sched-nightly-202612020200" and sent["verdict"] == "regressed"

    status = cli(home, "status", "sched-nightly-202612020200").stdout
    assert "finalized" in status and "change: regressed: 0/15 = 0% vs 15/15 = 100%" in status
    st = json.loads(cli(home, "status", "sched-nightly-202612020200", "--json").stdout)
    assert st["campaign_record"]["change"]["verdict"] == "regressed"
