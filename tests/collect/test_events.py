"""The fleet log: cut lines, unknown and alias events, a missing .swarm/."""
from __future__ import annotations

import os
import time

from swarmgym.collect import collect
from swarmgym.collect.events import read_events


def test_a_log_cut_mid_line_keeps_every_whole_line(workspace_with_log, cfg):
    ws = workspace_with_log("events-cut.jsonl")
    ev = collect(ws, None, cfg)
    assert [e["seq"] for e in ev.events] == [1, 2, 3, 4, 5]
    assert ev.event_counts == {"run_started": 1, "plan_loaded": 1, "task_dispatched": 2, "task_completed": 1}
    assert any("cut mid-line" in p for p in ev.problems)
    assert [(p.id, p.weight) for p in ev.pool] == [("studio", 2), ("mini", 1)]


def test_unknown_events_are_kept_and_counted_and_aliases_normalised(workspace_with_log):
    log = read_events(workspace_with_log("events-unknown.jsonl"))
    names = [e["event"] for e in log.events]
    assert names == ["run_started", "gpu_thermal", "pre_review", "speculated", "replanned", "gpu_thermal",
                     "kv_cache_evicted"]
    assert log.counts["gpu_thermal"] == 2 and log.counts["kv_cache_evicted"] == 1
    assert log.events[2]["event_alias"] == "prereview"
    assert log.unknown == {"gpu_thermal": 2, "kv_cache_evicted": 1}
    assert not any("unknown" in p for p in log.problems)  # a newer goose is not a problem
    assert log.pool[0].model_extra["vram_gb"] == 96


def test_a_missing_swarm_dir_is_a_problem_not_a_crash(tmp_path, cfg):
    (tmp_path / "ws").mkdir()
    ev = collect(tmp_path / "ws", None, cfg)
    assert ev.events == [] and ev.pool == []
    assert any(p.startswith("events: no event log") for p in ev.problems)


def test_the_newest_log_is_read(workspace_with_log):
    ws = workspace_with_log("events-unknown.jsonl")
    old = ws / ".swarm" / "run-swarm-20260101-120000123.jsonl"
    past = time.time() - 100
    os.utime(old, (past, past))
    (ws / ".swarm" / "run-swarm-20250101-000000000.jsonl").write_text(
        '{"ts": "", "run_id": "r", "seq": 1, "event": "run_started", "pool": []}\n')
    log = read_events(ws)
    assert log.path.name == "run-swarm-20250101-000000000.jsonl" and len(log.events) == 1


def test_blank_and_non_object_lines_are_skipped_with_a_problem(tmp_path):
    ws = tmp_path / "ws"
    (ws / ".swarm").mkdir(parents=True)
    (ws / ".swarm" / "run-a.jsonl").write_text('\n[1, 2]\n{"event": "run_started", "pool": []}\nnot json\n'
                                              '{"event": "run_finished"}\n')
    log = read_events(ws)
    assert [e["event"] for e in log.events] == ["run_started", "run_finished"]
    assert any(":2: not a JSON object" in p for p in log.problems)
    assert any(":4: not JSON" in p for p in log.problems)
