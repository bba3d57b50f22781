"""`swarmgym compare --fleet`: rounds sent to real Celery workers on a throwaway Redis; the
coordinator records every run, compare reads the outcomes back from the ledger."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.testing.localfleet import LocalFleet
from tests.support.queue import SIM_ENV, wait_until, write_config

pytestmark = [pytest.mark.redis, pytest.mark.slow]  # real Celery worker processes


def test_compare_over_the_fleet_records_every_run_via_the_coordinator(tmp_path, own_redis):
    from swarmgym.queue.app import make_app

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, broker_url=own_redis.url(0), result_backend=own_redis.url(1))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOSE_SWARM_", "SWARMGYM_"))}
    fleet = LocalFleet(home, {**SIM_ENV, "SWARMGYM_SIM_TIME_SCALE": "0.005"}, die_with_parent=True)
    try:
        names = [fleet.coordinator("coord"), fleet.worker("gguf", "gguf-host", concurrency=2)]
        fleet.wait_ready(make_app(load_config(home)), names, timeout=120)
        started = time.time()
        p = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "compare", "gguf",
                            "gguf:GOOSE_SWARM_REVIEW=1", "--fleet", "--max-runs", "6", "--json",
                            "--round-timeout", "600"], check=False, capture_output=True, text=True, env=env, timeout=900)
        assert p.returncode == 0, p.stderr
        out = json.loads(p.stdout)
        assert {"decision", "runs", "p_value", "effect", "interval", "rounds"} <= set(out)
        assert out["runs"] == 6 and out["rounds"] == 1 and out["decision"] == "undecided"
        ledger = Ledger(home / "ledger")
        recs = [r for r in ledger.records(kind="session") if r.ts >= started]
        assert len(recs) == 6 and {r.host for r in recs} == {"gguf-host"}
        assert sorted(r.flags.get("GOOSE_SWARM_REVIEW", "-") for r in recs) == ["-"] * 3 + ["1"] * 3
        cids = {r.campaign_id for r in recs}
        assert cids == {f"{out['compare_id']}-r01-a", f"{out['compare_id']}-r01-b"}
        wait_until(lambda: all(ledger.has_job(f"campaign:{c}") for c in cids), 120, 0.2, "chord bodies finalized")
        state = json.loads((home / "runs" / "compares" / f"{out['compare_id']}.json").read_text())
        assert state["mode"] == "queue" and len(state["rounds"][0]["pairs"]) == 3
    finally:
        fleet.stop_all()
