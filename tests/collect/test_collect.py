"""collect() never raises: every odd input becomes Evidence with a recorded problem."""
from __future__ import annotations

from swarmgym.collect import collect
from swarmgym.models import RunOutcome


def test_a_missing_workspace_and_no_outcome_still_give_evidence(tmp_path, cfg):
    ev = collect(tmp_path / "never-created", None, cfg)
    assert ev.workspace == str(tmp_path / "never-created")
    assert any(p.startswith("snapshot:") for p in ev.problems)
    assert any(p.startswith("run:") for p in ev.problems)


def test_an_outcome_without_report_is_rebuilt_from_the_log(workspace_with_log, cfg):
    ws = workspace_with_log("events-cut.jsonl")
    out = RunOutcome(adapter="goose", exit_code=124, timed_out=True)
    ev = collect(ws, out, cfg)
    assert ev.run.report_source == "events" and ev.report.done == ["t1"]
    assert out.report is None  # the caller's outcome is not mutated


def test_a_recorded_event_log_that_vanished_falls_back_to_the_newest(workspace_with_log, cfg):
    ws = workspace_with_log("events-unknown.jsonl")
    out = RunOutcome(adapter="goose", exit_code=0, event_log=str(ws / ".swarm" / "run-gone.jsonl"))
    ev = collect(ws, out, cfg)
    assert ev.event_counts.get("gpu_thermal") == 2


def test_garbage_config_does_not_sink_collect(tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("x")
    ev = collect(tmp_path / "ws", None, object())
    assert [f.path for f in ev.files] == ["a.txt"]
