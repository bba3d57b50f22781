"""Re-grading a finished campaign under bench-v2: new records beside the originals, once per suite hash."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from swarmgym import REPO_ROOT
from swarmgym.config import load_config
from swarmgym.core.errors import UsageError
from swarmgym.grading.regrade import regrade_campaign
from swarmgym.ledger import Ledger
from swarmgym.models import LedgerRecord
from swarmgym.suitekit.suite import load_suite, materialize

V1 = load_suite("bench-v1", REPO_ROOT / "suites")
V2 = load_suite("bench-v2", REPO_ROOT / "suites")


def original(i: int, spec: str, slug: str, tier: str = "medium") -> LedgerRecord:
    return LedgerRecord(session_id=f"s{i}-{slug}", job_id=f"camp1:{i:03d}", campaign_id="camp1", mode="benchmark",
                        spec=spec, app_slug=slug, variant="mlx", tier=tier, suite="bench-v1", suite_hash=V1.hash,
                        overall="pass", functional=True, dimensions={"checks": "pass", "cluster": "pass"}, ts=1.7e9)


@pytest.fixture
def campaign(tmp_path):
    """Two bench-v1 'passes': the compute reference, and a v2 mutant v1's checks cannot see (float-integral)."""
    cfg = load_config(tmp_path / "home", environ={})
    ledger = Ledger(cfg.ledger_dir)
    spec = V2.spec("compute")
    liar = next(m for m in V2.mutants(spec) if m.name == "float-integral")
    for i, mutant in enumerate([None, liar]):
        rec = original(i, "compute", "rdcalc")
        materialize(V2, spec, cfg.apps_dir / "rdcalc" / rec.session_id, mutant)
        ledger.record(rec)
    ledger.record(original(2, "txn", "txkvbench"))  # its workspace was cleaned away
    return cfg, ledger


@pytest.mark.slow  # grades workspaces on every bench-v2 check
def test_regrade_writes_new_marked_records_and_keeps_the_originals(campaign):
    cfg, ledger = campaign
    rows = {r.job_id: r for r in regrade_campaign("camp1", V2, cfg)}
    assert rows["camp1:000"].status == "written" and rows["camp1:000"].functional is True
    assert rows["camp1:001"].functional is False and rows["camp1:001"].failed == ["golden_table"]
    assert rows["camp1:002"].status == "skipped" and "gone" in rows["camp1:002"].reason
    recs = {r.job_id: r for r in ledger.records(campaign_id="camp1")}
    assert len(recs) == 5 and all(recs[f"camp1:00{i}"].suite_hash == V1.hash for i in range(3))
    new = recs[f"camp1:001@{V2.hash}"]
    assert new.regrade_of == "camp1:001" and new.suite == "bench-v2" and new.suite_hash == V2.hash
    assert (new.overall, new.functional, new.dimensions) == ("fail", False, {"checks": "fail"})
    assert new.data["original_suite_hash"] == V1.hash and new.provenance.suite_hash == V2.hash


@pytest.mark.slow  # grades workspaces on every bench-v2 check
def test_regrade_is_idempotent_per_job_and_suite_hash(campaign):
    cfg, _ = campaign
    regrade_campaign("camp1", V2, cfg)
    before = (cfg.ledger_dir / "sessions.jsonl").read_text()
    again = regrade_campaign("camp1", V2, cfg)
    assert [r.status for r in again] == ["exists", "exists", "skipped"]
    assert (cfg.ledger_dir / "sessions.jsonl").read_text() == before


def test_regrade_of_an_unknown_campaign_is_a_usage_error(campaign):
    cfg, _ = campaign
    with pytest.raises(UsageError, match="no-such"):
        regrade_campaign("no-such", V2, cfg)


@pytest.mark.slow  # grades workspaces on every bench-v2 check
def test_regrade_cli_prints_one_json_line_per_job(campaign):
    cfg, _ = campaign
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWARMGYM_")}
    res = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(cfg.home), "regrade", "--suite", "bench-v2",
                          "--json", "camp1"], check=False, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["status"] for r in rows] == ["written", "written", "skipped"]
    bad = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(cfg.home), "regrade", "nope"],
                         check=False, capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
