"""The job function end to end with the real simulator as a subprocess."""
import json

import pytest

from swarmgym.campaigns.job import run_job
from swarmgym.campaigns.plan import plan_jobs
from swarmgym.config import load_config
from swarmgym.ledger import record_from_result
from swarmgym.suitekit.suite import load_suite


@pytest.fixture
def cfg(tmp_path):
    return load_config(tmp_path, environ={"SWARMGYM_SWARM_TIMEOUT": "90"})


@pytest.fixture(scope="module")
def suite():
    return load_suite("bench-v1")


def job_for(suite, spec, force, **kw):
    job = next(j for j in plan_jobs(suite, "light", "mlx", campaign_id="t") if j.spec == spec)
    return job.model_copy(update={"env": {"SWARMGYM_SIM_FORCE": force, "SWARMGYM_SIM_TIME_SCALE": "0.01"}, **kw})


@pytest.mark.slow  # a full bench-v1 job through the simulator
def test_reference_build_passes_and_writes_session_folder(cfg, suite):
    res = run_job(job_for(suite, "compute", "reference"), cfg)
    assert res.status == "done" and res.verdict.overall in ("pass", "partial")
    assert res.verdict.functional and res.exit_code == 0 and res.tasks_done > 0
    folder = cfg.runs_dir / res.session_id
    assert {p.name for p in folder.iterdir()} >= {"session.json", "turn-1.json", "report.html"}
    doc = json.loads((folder / "session.json").read_text())
    assert doc["suite_hash"] == suite.hash and doc["turns"][0]["verdict"]["functional"] is True


@pytest.mark.slow  # a full bench-v1 job through the simulator
def test_liar_build_is_graded_fail_with_the_failing_golden_check_named(cfg, suite):
    spec = suite.spec("compute")
    liar_targets = {t for m in suite.mutants(spec) if m.failure == "liar" for t in m.targets}
    res = run_job(job_for(suite, "compute", "liar"), cfg)
    v = res.verdict
    assert v.overall == "fail" and v.functional is False
    failed = {r["name"] for r in v.dimensions["checks"].data["results"] if not r["passed"]}
    assert failed & liar_targets, f"a liar must fail a check some liar mutant targets, failed: {failed}"
    assert "tests_pass" not in failed, "a liar's own tests pass"
    assert all(any(f"'{t}'" in f.message for f in v.findings) for t in failed)
    rec = record_from_result(res)
    assert rec.functional is False and rec.overall == "fail" and rec.dimensions["checks"] == "fail"


@pytest.mark.slow  # a full bench-v1 job through the simulator
def test_narrator_task_raises_narration_finding(cfg, suite):
    res = run_job(job_for(suite, "txn", "narrator"), cfg)
    assert any(f.message.startswith("narration: task") for f in res.verdict.findings)
    assert res.verdict.dimensions["diagnostics"].status == "fail"


@pytest.mark.slow  # a full bench-v1 job through the simulator
def test_starved_device_raises_cluster_finding_and_is_an_idle_node(cfg, suite):
    res = run_job(job_for(suite, "crud", "starved"), cfg)
    assert any("starved" in f.message and f.dimension == "cluster" for f in res.verdict.findings)
    assert res.idle_nodes and record_from_result(res).idle_nodes == res.idle_nodes


def test_suite_mismatch_is_an_infra_result_with_the_reason(cfg, suite):
    job = job_for(suite, "compute", "reference", suite_hash="sha256:not-this-suite")
    res = run_job(job, cfg)
    assert res.status == "infra" and res.verdict is None
    assert res.error.type == "CannotRun" and "hashes to" in res.error.message
    rec = record_from_result(res)
    assert rec.overall == "infra" and rec.functional is False and rec.error.type == "CannotRun"
    assert rec.provenance.adapter == "sim" and rec.provenance.host == res.host
    doc = json.loads((cfg.runs_dir / res.session_id / "session.json").read_text())
    assert doc["overall"] == "infra" and doc["provenance"]["adapter"] == "sim"


def test_a_job_that_crashes_keeps_where_it_failed_in_its_record_and_logs_the_traceback(cfg, suite, caplog):
    import logging

    cfg.home.mkdir(parents=True, exist_ok=True)
    (cfg.home / "apps").write_text("a file where the workspaces folder should be")
    with caplog.at_level(logging.ERROR, logger="swarmgym.campaigns.job"):
        res = run_job(job_for(suite, "compute", "reference"), cfg)
    assert res.status == "error" and res.error.type in ("NotADirectoryError", "FileExistsError")
    trace = res.error.traceback
    assert "in run_job" in trace and "mkdir" in trace  # the job's frame and the call that failed under it
    assert trace.rstrip().endswith(f"{res.error.type}: {res.error.message}")
    rec = record_from_result(res)
    assert rec.overall == "error" and rec.error.traceback == res.error.traceback  # the ledger keeps it
    doc = json.loads((cfg.runs_dir / res.session_id / "session.json").read_text())
    assert doc["error"]["traceback"] == trace
    (line,) = [r for r in caplog.records if res.job.job_id in r.getMessage()]
    assert line.levelno == logging.ERROR and line.exc_info[0].__name__ == res.error.type


def test_a_record_written_before_tracebacks_were_kept_still_loads(tmp_path):
    from swarmgym.ledger import Ledger
    from swarmgym.models import LedgerRecord

    old = {"session_id": "s-old", "job_id": "c:0001", "campaign_id": "c", "mode": "benchmark", "spec": "crud",
           "app_slug": "invtrack", "variant": "mlx", "tier": "smoke", "overall": "error", "functional": False,
           "ts": 1.7e9, "error": {"type": "AdapterError", "message": "goose binary not found"}}
    (tmp_path / "ledger").mkdir()
    (tmp_path / "ledger" / "sessions.jsonl").write_text(json.dumps(old) + "\n")
    (rec,) = Ledger(tmp_path / "ledger").records()
    assert isinstance(rec, LedgerRecord) and rec.error.type == "AdapterError" and rec.error.traceback is None
