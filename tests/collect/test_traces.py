"""Worker traces from goose's sessions.db: tool calls, MCP calls, absent and locked DBs."""
from __future__ import annotations

import sqlite3

from swarmgym.collect import collect
from swarmgym.collect.traces import default_sessions_db, read_traces
from swarmgym.models import RunOutcome, RunReport, TaskOutcome

IDS = ["20260101_1", "20260101_2", "20260101_3", "20260101_9"]


def test_tool_calls_mcp_calls_and_results_are_read(sessions_db):
    traces, problems = read_traces(sessions_db, IDS)
    t1 = traces["20260101_1"]
    assert [(c.name, c.is_mcp, c.ok) for c in t1.tool_calls] == [
        ("developer__text_editor", False, True), ("developer__shell", False, False),
        ("context7__get-library-docs", True, True)]
    assert t1.mcp_calls == 1 and t1.messages == 8
    narrator = traces["20260101_2"]
    assert narrator.found and narrator.tool_calls == [] and narrator.messages == 2
    assert [(c.name, c.is_mcp, c.ok) for c in traces["20260101_3"].tool_calls] == [
        ("platform__manage_schedule", False, False)]
    assert traces["20260101_9"].found is False
    assert any("1 of 4" in p and "20260101_9" in p for p in problems)


def test_the_db_is_opened_read_only(sessions_db):
    before = sessions_db.stat().st_mtime_ns, sessions_db.read_bytes()
    read_traces(sessions_db, IDS)
    assert (sessions_db.stat().st_mtime_ns, sessions_db.read_bytes()) == before
    assert not sessions_db.with_name("sessions.db-journal").exists()


def test_an_absent_db_gives_not_found_traces_and_a_problem(tmp_path):
    traces, problems = read_traces(tmp_path / "nope" / "sessions.db", ["a"])
    assert traces["a"].found is False
    assert "cannot open" in problems[0] and str(tmp_path / "nope") in problems[0]
    assert not (tmp_path / "nope").exists()


def test_a_locked_db_is_a_problem_not_a_crash(sessions_db, tmp_path, cfg):
    holder = sqlite3.connect(sessions_db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        report = RunReport(tasks=[TaskOutcome(task_id="t1", status="done", session_id="20260101_1")])
        out = RunOutcome(adapter="goose", exit_code=0, report=report, sessions_db=str(sessions_db))
        (tmp_path / "ws").mkdir()
        ev = collect(tmp_path / "ws", out, cfg)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert ev.traces["20260101_1"].found is False
    assert any("locked" in p for p in ev.problems)


def test_the_db_path_comes_from_config_then_goose_path_root_then_the_default(tmp_path):
    assert default_sessions_db({}, str(tmp_path / "x.db")) == tmp_path / "x.db"
    assert default_sessions_db({"GOOSE_PATH_ROOT": str(tmp_path)}) == tmp_path / "data" / "sessions" / "sessions.db"
    assert str(default_sessions_db({})).endswith(".local/share/goose/sessions/sessions.db")


def test_collect_with_an_absent_db_records_the_path_and_keeps_going(tmp_path, cfg):
    report = RunReport(tasks=[TaskOutcome(task_id="t1", status="done", session_id="20260101_1")])
    missing = tmp_path / "no-goose" / "data" / "sessions" / "sessions.db"
    out = RunOutcome(adapter="goose", exit_code=0, report=report, sessions_db=str(missing))
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "main.py").write_text("print(1)\n")
    ev = collect(tmp_path / "ws", out, cfg)
    assert ev.traces["20260101_1"].found is False
    assert any(p.startswith("traces: cannot open") and str(missing) in p for p in ev.problems)
    assert [f.path for f in ev.files] == ["main.py"]  # the other sources were still collected
