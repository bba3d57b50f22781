"""RunReports from other goose versions: older ones lack fields, newer ones add some."""
from __future__ import annotations

from swarmgym.collect import collect
from swarmgym.collect.events import read_events
from swarmgym.collect.report import coerce_report, parse_report, report_from_events


def test_an_older_report_missing_fields_is_read_with_defaults_and_a_problem(tmp_path, cfg, cat_outcome):
    out = cat_outcome(tmp_path / "ws", "report-old.json")
    ev = collect(tmp_path / "ws", out, cfg)
    rep = ev.report
    assert rep.done == ["t1-store", "t2-cli"] and rep.failed == ["t3-tests"]
    assert rep.salvaged == [] and rep.per_device == {}
    assert [t.name for t in rep.tasks[1].tool_calls] == ["developer__text_editor", "context7__get-library-docs"]
    assert [t.is_mcp for t in rep.tasks[1].tool_calls] == [False, True]
    assert any("fields missing" in p and "per_device" in p for p in ev.problems)


def test_a_newer_report_keeps_its_unknown_fields_and_records_them(tmp_path, cfg, cat_outcome):
    out = cat_outcome(tmp_path / "ws", "report-new.json")
    ev = collect(tmp_path / "ws", out, cfg)
    rep = ev.report
    assert rep.model_extra["judge"] == {"verdict": "pass", "model": "qwen3-32b"}
    assert rep.tasks[0].model_extra["tokens"] == {"in": 100, "out": 50}
    assert rep.per_device["studio"].model_extra["tokens_out"] == 5123
    dumped = rep.model_dump(mode="json")
    assert dumped["run_id"] == "swarm-20270101-090000123"  # survives a round trip to the ledger
    assert any("unknown fields kept" in p and "judge" in p for p in ev.problems)


def test_fields_of_the_wrong_shape_are_dropped_not_fatal():
    rep, problems = coerce_report({"done": "t1", "tasks": [{"task_id": "a", "attempts": "many"}, 7],
                                   "results": {"a": "ok"}})
    assert rep.done == [] and rep.results == {"a": "ok"}
    assert [t.task_id for t in rep.tasks] == ["a"] and rep.tasks[0].attempts == 0
    assert any("done" in p for p in problems) and any("tasks[1]" in p for p in problems)


def test_a_report_after_progress_lines_is_found_and_garbage_is_not_a_report():
    rep, _ = parse_report('planning…\n{"done": ["t1"], "failed": []}\n')
    assert rep.done == ["t1"]
    rep, problems = parse_report('panicked at swarm.rs\n{"done": ["t1"], "tasks": [{"name": "x"}')
    assert rep is None and "not JSON" in problems[0]
    assert parse_report("")[0] is None


def test_tasks_are_rebuilt_from_completed_events_and_unfinished_ones_are_incomplete(workspace_with_log):
    ws = workspace_with_log("events-cut.jsonl")
    rep = report_from_events(read_events(ws).events)
    assert {t.task_id: t.status for t in rep.tasks} == {"t1": "done", "t2": "incomplete", "t3": "incomplete"}
    assert rep.done == ["t1"] and rep.dispatched_per_device == {"studio": 1, "mini": 1}
