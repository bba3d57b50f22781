"""Whatever the swarm prints, reading it ends: deep nesting is a problem line, never a RecursionError,
and hostile stdout, event logs and sessions.db files cost time linear in their size (issue #20 item 6).

No timers here: each payload below took the old parser a RecursionError or minutes of CPU; the tests
assert what comes out (benchmarks/hostile_output.py measures the cost)."""
from __future__ import annotations

import json
import os
import sqlite3

import pytest

from swarmgym.collect import jsonbound
from swarmgym.collect.events import read_events
from swarmgym.collect.report import parse_report
from swarmgym.collect.traces import read_traces

REPORT = json.dumps({"done": ["t1"], "failed": [], "tasks": [{"task_id": "t1", "status": "done"}]}, indent=2)
HOSTILE = {
    "100k [": "[" * 100_000,
    "100k nested objects": '{"a":' * 100_000,
    "8 MB unterminated nesting": '{"a":' * 900 + "1," + '"x",' * 2_000_000,
    "8 MB of {": "{" * 8_000_000,
    "4 M keys opening": '{"' * 4_000_000,
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_stdout_is_no_report_and_no_exception(name):
    report, problems = parse_report(HOSTILE[name])
    assert report is None and problems == ["report: stdout is not JSON; no RunReport printed"]


@pytest.mark.parametrize("name", ["100k [", "8 MB unterminated nesting", "8 MB of {"])
def test_a_real_report_after_hostile_noise_is_still_found(name):
    report, _ = parse_report(HOSTILE[name][:200_000] + "\n" + REPORT)
    assert report is not None and [t.task_id for t in report.tasks] == ["t1"]


def test_a_report_inside_an_unclosed_object_or_past_the_try_cap_is_no_report():
    assert parse_report(HOSTILE["100k nested objects"][:200_000] + "\n" + REPORT)[0] is None  # not outermost
    past = '{"' * (3 * jsonbound.MAX_TRIES)
    assert parse_report(past + "\n" + REPORT)[0] is None  # the swarm buried its own report
    assert parse_report('{"' * 100 + "\n" + REPORT)[0] is not None


def test_json_nested_past_the_cap_is_a_value_error():
    with pytest.raises(ValueError):
        jsonbound.loads("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="deeper than 64"):
        jsonbound.loads("[" * 65 + "]" * 65)
    assert jsonbound.loads("[" * 64 + "]" * 64) is not None


def test_an_event_log_with_deep_lines_keeps_its_good_lines(tmp_path):
    (tmp_path / ".swarm").mkdir()
    good = {"ts": "2026-01-01T00:00:00+00:00", "run_id": "r", "seq": 0, "event": "run_started", "pool": []}
    lines = [json.dumps(good), "[" * 100_000, '{"a":' * 100_000, json.dumps({**good, "seq": 1, "event": "run_finished"})]
    (tmp_path / ".swarm" / "run-swarm-1.jsonl").write_text("\n".join(lines) + "\n")
    log = read_events(tmp_path)
    assert [e["event"] for e in log.events] == ["run_started", "run_finished"]
    assert sum("not JSON" in p for p in log.problems) == 2


def _db(path, sessions: int, per: int = 2, content: str | None = None):
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, message_id TEXT, session_id TEXT, role TEXT, "
                "content_json TEXT, created_timestamp INTEGER, timestamp INTEGER, tokens INTEGER, metadata_json TEXT)")
    call = json.dumps([{"type": "toolRequest", "id": "c", "toolCall": {"value": {"name": "developer__shell"}}}])
    con.executemany("INSERT INTO messages (session_id, role, content_json) VALUES (?, ?, ?)",
                    [(f"s{i}", "assistant", content or call) for i in range(sessions) for _ in range(per)])
    con.commit()
    con.close()
    return path


def test_two_thousand_task_sessions_are_read_in_one_pass(tmp_path):
    db = _db(tmp_path / "sessions" / "sessions.db", 2000)
    traces, problems = read_traces(db, [f"s{i}" for i in range(2000)] + ["absent"])
    assert all(traces[f"s{i}"].found and len(traces[f"s{i}"].tool_calls) == 2 for i in range(2000))
    assert not traces["absent"].found and problems == [f"traces: 1 of 2001 task session(s) not in {db}: absent"]


def test_deeply_nested_message_content_is_skipped_not_fatal(tmp_path):
    db = _db(tmp_path / "sessions" / "sessions.db", 1, content="[" * 100_000)
    traces, _ = read_traces(db, ["s0"])
    assert traces["s0"].found and traces["s0"].tool_calls == []


def test_a_sessions_db_over_the_size_cap_is_not_opened(tmp_path):
    db = _db(tmp_path / "sessions" / "sessions.db", 1)
    with open(db, "ab") as f:
        f.truncate(3 << 20)
    traces, problems = read_traces(db, ["s0"], max_mb=2)
    assert not traces["s0"].found and "over the 2 MB cap" in problems[0]


def test_more_message_bytes_than_the_read_cap_stop_with_a_problem(tmp_path):
    db = _db(tmp_path / "sessions" / "sessions.db", 50, per=10)
    traces, problems = read_traces(db, [f"s{i}" for i in range(50)], max_read=4000)
    assert any("the rest not read" in p for p in problems)
    assert sum(t.found for t in traces.values()) < 50


@pytest.mark.parametrize("plant", ["fifo", "link", "linked-folder", "fifo-wal"])
def test_a_planted_sessions_db_link_or_fifo_is_never_opened(tmp_path, plant):
    real = _db(tmp_path / "elsewhere" / "sessions.db", 1)
    db = tmp_path / "goose" / "sessions" / "sessions.db"
    if plant == "linked-folder":
        (tmp_path / "goose").mkdir()
        os.symlink(real.parent, db.parent)
    else:
        db.parent.mkdir(parents=True)
        if plant == "fifo":
            os.mkfifo(db)
        elif plant == "link":
            os.symlink(real, db)
        else:
            _db(db, 1)
            os.mkfifo(db.with_name("sessions.db-wal"))
    traces, problems = read_traces(db, ["s0"])  # returns: a FIFO would block an open forever
    assert not traces["s0"].found and "not opened" in problems[0]
