"""The record source answered from a home's plans and ledger (the embedded path, and what the coordinator
answers the CLI with): facts, rows, records, plans, cancel and resume; a bad question is one line."""
from __future__ import annotations

import time

import pytest
import yaml

from swarmgym.campaigns.plan import Campaign, load_campaign, plan_jobs, save_campaign
from swarmgym.campaigns.records import Ask, LedgerSource, checked
from swarmgym.config import load_config
from swarmgym.core.errors import UsageError
from swarmgym.ledger import Ledger, record_from_result
from swarmgym.models import ErrorInfo, JobResult
from swarmgym.suitekit.suite import load_suite


@pytest.fixture
def home(tmp_path):
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"suite": "bench-v2"}))
    cfg = load_config(tmp_path)
    s = load_suite(cfg.suite, cfg.suites_dir)
    camp = Campaign(campaign_id="c1", mode="local", tier="light", variant="mlx", suite=s.name, suite_hash=s.hash,
                    jobs=plan_jobs(s, "light", "mlx", campaign_id="c1"))
    save_campaign(cfg, camp)
    first, second, _ = camp.jobs
    now = time.time()
    recs = [record_from_result(JobResult(job=first, session_id="s1", host="h1", status="done", started=now - 2,
                                         finished=now, wall_secs=2.0)),
            record_from_result(JobResult(job=second, session_id="s2", host="h2", status="error", started=now - 1,
                                         finished=now, error=ErrorInfo(type="Boom", message="disk\nfull")))]
    Ledger(cfg.ledger_dir).record_many(recs)
    return cfg, camp


def test_a_campaigns_facts_count_its_records_and_name_each_failed_job_with_its_reason(home):
    cfg, camp = home
    (f,) = checked(LedgerSource(cfg), Ask(kind="campaign", campaign_ids=["c1"])).facts
    assert (f.planned, f.recorded, f.mode, f.cancelled, f.campaign_record) == (3, 2, "local", False, None)
    assert f.outcomes == {"error": 2}  # a run with no verdict is an error too
    why = {p.job_id: (p.host, p.reason) for p in f.failures}
    assert why[camp.jobs[1].job_id] == ("h2", "Boom: disk full") and set(why) == set(r.job_id for r in camp.jobs[:2])


def test_rows_follow_the_plan_and_say_which_jobs_are_recorded(home):
    cfg, camp = home
    rows = checked(LedgerSource(cfg), Ask(kind="rows", campaign_ids=["c1"])).rows
    assert [r.job_id for r in rows] == [j.job_id for j in camp.jobs]
    assert [r.recorded for r in rows] == [True, True, False] and rows[0].host == "h1" and rows[0].wall_secs == 2.0
    sessions = checked(LedgerSource(cfg), Ask(kind="sessions", campaign_ids=["c1"])).sessions
    assert sorted(r.session_id for r in sessions) == ["s1", "s2"]


def test_cancel_and_resume_change_the_plan_the_source_keeps_and_say_what_is_recorded(home):
    cfg, camp = home
    a = checked(LedgerSource(cfg), Ask(kind="cancel", campaign_ids=["c1"]))
    assert a.plan.cancelled and load_campaign(cfg, "c1").cancelled
    assert set(a.recorded) == {camp.jobs[0].job_id, camp.jobs[1].job_id}
    assert not checked(LedgerSource(cfg), Ask(kind="resume", campaign_ids=["c1"])).plan.cancelled
    assert not load_campaign(cfg, "c1").cancelled


def test_a_campaign_nobody_planned_is_an_answer_with_one_line_not_a_traceback(home):
    cfg, _ = home
    a = LedgerSource(cfg).ask(Ask(kind="campaign", campaign_ids=["nope"]))
    assert a.error and "nope" in a.error and "\n" not in a.error
    with pytest.raises(UsageError, match="nope"):
        checked(LedgerSource(cfg), Ask(kind="plan", campaign_ids=["nope"]))
