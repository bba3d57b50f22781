"""The goose fixtures (tests/fixtures/goose, written from goose's Rust structs) fit the same schema
the simulator is held to, and swarmgym reads every one of them without a problem line."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from swarmgym.collect import collect
from swarmgym.collect.events import read_events
from swarmgym.collect.report import find_json_object, parse_report
from swarmgym.collect.traces import read_traces
from swarmgym.config import load_config
from swarmgym.grading.grade import grade
from swarmgym.models import RunOutcome
from tests.contract import goose_schema as schema

GOOSE = Path(__file__).parent.parent / "fixtures" / "goose"
FULL_LOG = GOOSE / "run-swarm-20260101-120000123.jsonl"
CUT_LOG = GOOSE / "run-swarm-20260101-130000456.jsonl"


@pytest.fixture
def sessions_db(tmp_path) -> Path:
    db = tmp_path / "sessions.db"
    con = sqlite3.connect(db)
    con.executescript((GOOSE / "sessions.sql").read_text())
    con.close()
    return db


@pytest.fixture
def workspace(tmp_path) -> Path:
    ws = tmp_path / "ws"
    (ws / ".swarm").mkdir(parents=True)
    (ws / ".swarm" / FULL_LOG.name).write_bytes(FULL_LOG.read_bytes())
    return ws


def test_goose_fixtures_fit_the_goose_schema(sessions_db):
    schema.check_report(find_json_object((GOOSE / "run-report.stdout").read_text()))
    events = schema.check_log(FULL_LOG)
    assert {e["event"] for e in events} >= set(schema.EVENTS) | schema.ENVELOPE_ONLY
    assert len(schema.check_log(CUT_LOG)) == 12
    traces = schema.check_sessions(sessions_db)
    assert set(traces) == {"20260101_1", "20260101_2", "20260101_3", "20260101_4"}


def test_the_report_after_noise_is_the_outermost_report_not_a_task():
    report, problems = parse_report((GOOSE / "run-report.stdout").read_text())
    assert problems == []
    assert report.done == ["core-model"] and report.failed == ["polish-docs", "integrate-verify"]
    assert [t.task_id for t in report.tasks][-1] == "extra-export"
    never_ran = report.tasks[-1]
    assert never_ran.elapsed_ms is None and never_ran.output is None and never_ran.session_id is None
    assert report.tasks[0].elapsed_ms == 325374  # the final attempt's wall clock, not the sum
    assert report.blocking_failures() == [] and report.tolerated_failures() == ["polish-docs", "integrate-verify"]


def test_a_report_cut_mid_task_is_no_report_at_all():
    text = (GOOSE / "run-report.stdout").read_text()
    cut = text[: text.index('"task_id": "integrate-verify"')]
    report, problems = parse_report(cut)
    assert report is None and problems == ["report: stdout is not JSON; no RunReport printed"]


def test_every_goose_event_is_read_without_a_problem_line_and_a_cut_log_keeps_its_whole_lines(workspace):
    log = read_events(workspace, FULL_LOG)
    assert log.problems == [] and log.unknown == {}
    assert log.counts["task_completed"] == 4 and log.counts["run_paused"] == 1 and log.counts["fleet_resolved"] == 1
    assert [p.id for p in log.pool] == ["studio-30b", "mini-7b"]
    cut = read_events(workspace, CUT_LOG)
    assert len(cut.events) == 12 and len(cut.problems) == 1 and "cut mid-line" in cut.problems[0]


def test_goose_sessions_are_read_with_every_tool_call_and_its_outcome(sessions_db):
    traces, problems = read_traces(sessions_db, ["20260101_1", "20260101_2", "20260101_3", "20260101_4"])
    assert problems == [] and all(t.found for t in traces.values())
    assert [c.name for c in traces["20260101_2"].tool_calls] == ["developer__text_editor",
                                                                  "context7__get-library-docs", "developer__shell"]
    assert traces["20260101_2"].mcp_calls == 1
    assert traces["20260101_3"].tool_calls[0].ok is False  # toolResult status "error"
    assert traces["20260101_4"].tool_calls[0].ok is False  # isError: true
    assert traces["20260101_1"].tool_calls[1].ok is None  # no response arrived


def test_failed_bonus_and_owns_nothing_tasks_never_fail_the_run(workspace, sessions_db, tmp_path):
    cfg = load_config(tmp_path / "home", environ={})
    report, _ = parse_report((GOOSE / "run-report.stdout").read_text())
    outcome = RunOutcome(adapter="goose", exit_code=1, report=report, report_source="stdout",
                         event_log=str(workspace / ".swarm" / FULL_LOG.name), sessions_db=str(sessions_db))
    ev = collect(workspace, outcome, cfg)
    assert ev.problems == []
    v = grade(workspace, [], cfg, evidence=ev)
    assert v.status("swarm") == "partial" and v.overall == "partial"
