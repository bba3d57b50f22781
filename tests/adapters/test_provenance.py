"""Records tell the truth about themselves: provenance, infra runs, arms per adapter (real sim runs)."""
from __future__ import annotations

import json
import sys

import pytest

from swarmgym.campaigns.job import run_job
from swarmgym.campaigns.plan import plan_jobs
from swarmgym.config import load_config
from swarmgym.ledger import Ledger, record_from_result
from swarmgym.reports import regenerate
from swarmgym.suitekit.suite import load_suite

FAST = {"SWARMGYM_SIM_FORCE": "reference", "SWARMGYM_SIM_TIME_SCALE": "0.01"}


@pytest.fixture(scope="module")
def suite():
    return load_suite("bench-v1")


def _job(suite, cid: str, swarm: str = "sim", **kw):
    job = next(j for j in plan_jobs(suite, "light", "mlx", campaign_id=cid, swarm=swarm) if j.spec == "compute")
    return job.model_copy(update={"env": dict(FAST), **kw})


def _cfg(tmp_path, **swarm):
    import yaml

    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"swarm": {"timeout": 90, **swarm}}))
    return load_config(tmp_path, environ={})


@pytest.mark.slow  # full bench-v1 jobs through the simulator
def test_a_ledger_line_alone_tells_adapter_binary_version_flags_seed_isolation_and_host(tmp_path, suite):
    cfg = _cfg(tmp_path)
    res = run_job(_job(suite, "c1", seed=1000, flags={"GOOSE_SWARM_REVIEW": "1"}), cfg, host="studio-7")
    assert res.status == "done", res.error
    Ledger(cfg.ledger_dir).record(record_from_result(res))
    line = json.loads((cfg.ledger_dir / "sessions.jsonl").read_text().splitlines()[0])
    prov = line["provenance"]
    assert prov["adapter"] == "sim" and ("swarmgym-sim" in prov["binary"] or "swarmgym.sim" in prov["binary"])
    assert prov["binary_version"] == f"swarmgym-sim {__import__('swarmgym').__version__}"
    assert prov["flags"] == {"GOOSE_SWARM_REVIEW": "1"} and line["flags"] == {"GOOSE_SWARM_REVIEW": "1"}
    assert prov["seed"] == 1000 and prov["host"] == "studio-7" and prov["suite_hash"] == suite.hash
    assert prov["isolation"] in ("bwrap", "seatbelt", "none")
    assert prov["fleet_hash"].startswith("sha256:") and prov["swarmgym_version"]
    assert prov["knobs"]["pool"] and all(d["weight"] >= 1 for d in prov["knobs"]["pool"].values())
    doc = json.loads((cfg.runs_dir / res.session_id / "session.json").read_text())
    assert doc["provenance"] == prov


@pytest.mark.slow  # full bench-v1 jobs through the simulator
def test_missing_binary_is_an_infra_record_shown_apart_and_kept_out_of_pass_rates(tmp_path, suite):
    cfg = _cfg(tmp_path, binary=str(tmp_path / "no-such-goose"))
    ledger = Ledger(cfg.ledger_dir)
    ok = run_job(_job(suite, "c-sim"), cfg)
    missing = run_job(_job(suite, "c-goose", swarm="goose"), cfg)
    assert ok.status == "done" and missing.status == "infra"
    assert "no-such-goose" in missing.error.message and missing.wall_secs < 30
    for r in (ok, missing):
        ledger.record(record_from_result(r))
    rec = ledger.find(missing.session_id)[0]
    assert rec.overall == "infra" and rec.provenance.adapter == "goose" and rec.provenance.binary is None
    paths = {p.name: p for p in regenerate(cfg)}
    md_path, summary = paths["BENCHMARK.md"], paths["benchmark-summary.csv"]
    md = md_path.read_text()
    infra = md[md.index("## Could not run (infra)"):md.index("## Head-to-head")]
    assert "| mlx (goose) | 1 |" in infra
    summary_md = md[md.index("## Summary"):md.index("## Could not run")]
    assert "mlx (goose)" not in summary_md and "mlx (sim)" in summary_md
    rows = [r.split(",") for r in summary.read_text().splitlines()]
    goose_all = next(r for r in rows if r[0] == "mlx (goose)" and r[1] == "ALL")
    assert (goose_all[2], goose_all[3], goose_all[-1]) == ("0", "0", "1")  # no run in the rate, one infra


@pytest.mark.slow  # full bench-v1 jobs through the simulator
def test_sim_and_command_runs_of_one_variant_never_pool_into_one_arm(tmp_path, suite):
    cfg = _cfg(tmp_path, command=[sys.executable, "-c", "print('built nothing')", "{prompt}"])
    ledger = Ledger(cfg.ledger_dir)
    for cid, swarm in (("c-sim", "sim"), ("c-cmd", "command")):
        res = run_job(_job(suite, cid, swarm=swarm), cfg)
        assert res.status == "done", res.error
        assert res.provenance.adapter == swarm and res.provenance.binary_version is not None
        ledger.record(record_from_result(res))
    md = regenerate(cfg)[0].read_text()
    summary = md[md.index("## Summary"):md.index("## Head-to-head")]
    assert "| mlx (sim) |" in summary and "| mlx (command) |" in summary
    h2h = md[md.index("## Head-to-head"):md.index("## Per variant")]
    assert " vs " not in h2h  # a simulated arm is never compared with a real one


def test_binary_version_is_asked_once_per_binary_and_again_when_it_is_rebuilt(tmp_path):
    import os

    from swarmgym.adapters.provenance import binary_version

    calls = tmp_path / "calls"
    exe = tmp_path / "fakegoose"
    exe.write_text(f"#!/bin/sh\necho x >> {calls}\necho 'goose 1.2.3-local'\n")
    exe.chmod(0o755)
    assert binary_version([str(exe)]) == "goose 1.2.3-local"
    assert binary_version([str(exe)]) == "goose 1.2.3-local"
    assert len(calls.read_text().splitlines()) == 1
    st = exe.stat()
    os.utime(exe, (st.st_atime, st.st_mtime + 5))  # a rebuilt binary
    binary_version([str(exe)])
    assert len(calls.read_text().splitlines()) == 2
    assert binary_version([str(tmp_path / "missing")]) is None
