"""The plan travels through Redis: the CLI, the coordinator and the hosts need no shared folder."""
from __future__ import annotations

import subprocess
import sys

import pytest

from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.queue import plans
from swarmgym.queue.redis_util import for_config
from tests.support.queue import app_for, tiny_jobs_home, wait_until

pytestmark = pytest.mark.redis


@pytest.mark.slow  # real Celery worker processes
def test_a_campaign_enqueued_from_another_home_is_run_and_finalized_by_the_coordinator(tmp_path, home, fleet_factory):
    laptop = tmp_path / "laptop"  # the CLI's home: not the coordinator's, not the hosts'
    host_home = tmp_path / "host"
    for h in (home, laptop, host_home):  # one tiny suite beside the three homes
        h.mkdir(exist_ok=True)
        tiny_jobs_home(h)
    fleet = fleet_factory()
    fleet.wait_ready(app_for(home), [fleet.coordinator()])
    p = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(laptop), "enqueue", "--tier", "smoke"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    cid = p.stdout.split()[0]
    # no host yet: the campaign cannot finish (and its plan leave Redis) before this look
    assert plans.fetch(for_config(load_config(laptop)), cid).campaign_id == cid
    fleet.wait_ready(app_for(home), [fleet.worker("mlx", "mlx-a", home=host_home)])
    wait_until(lambda: Ledger(home / "ledger").has_job(f"campaign:{cid}"), 240, 0.2, "the campaign record")
    assert (home / "runs" / "campaigns" / f"{cid}.json").is_file()  # the coordinator kept its own copy
    assert [r.host for r in Ledger(home / "ledger").records(kind="session", campaign_id=cid)] == ["mlx-a"]


def test_a_plan_found_nowhere_is_one_line_naming_both_places(home, rdb):
    p = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "resume", "nowhere"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
    assert "no plan in Redis" in p.stderr and "no coordinator is alive" in p.stderr
