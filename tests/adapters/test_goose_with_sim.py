"""The goose adapter driving the real swarmgym-sim executable, then collect: every fault kind
shows up in the evidence the way a user reading a verdict would need to see it."""
from __future__ import annotations

import json
from pathlib import Path

import psutil
import pytest

from tests.support.grading import check_results
from tests.support.simrun import run_goose, suite

PROMPT = suite().spec("crud").prompt


@pytest.mark.slow  # a simulated build graded on every bench-v2 check
def test_reference_build_passes_every_golden_check(tmp_path):
    run = run_goose(tmp_path, PROMPT, SWARMGYM_SIM_FORCE="reference")
    assert run.outcome.exit_code == 0 and run.outcome.report_source == "stdout"
    spec = suite().spec("crud")
    results = check_results(spec.checks_for(False), run.workspace, _cfg(tmp_path), run.evidence)
    assert [r.name for r in results if not r.passed] == []
    assert run.evidence.problems == []
    rep = run.evidence.report
    assert rep.failed == [] and len(rep.done) == len(rep.tasks) >= 4
    assert all(t.found and t.tool_calls for t in run.evidence.traces.values())
    assert {p.id for p in run.evidence.pool} == set(rep.dispatched_per_device)


def _cfg(tmp_path):
    from tests.support.simrun import goose_cfg
    return goose_cfg(tmp_path)


@pytest.mark.slow  # a simulated build graded on every bench-v2 check
@pytest.mark.parametrize("fault", ["liar", "stub", "crash"])
def test_mutant_faults_build_an_app_that_fails_golden_checks(tmp_path, fault):
    run = run_goose(tmp_path, PROMPT, SWARMGYM_SIM_FORCE=fault)
    spec = suite().spec("crud")
    mutants = [m for m in suite().mutants(spec) if m.failure == fault]
    targeted = {t for m in mutants for t in m.targets} | {  # bench-v1 targets, or the checks covering what it breaks
        c.name for c in spec.checks for m in mutants if set(c.covers or []) & set(m.breaks)}
    checks = [c for c in spec.checks_for(False) if c.name in targeted]
    results = check_results(checks, run.workspace, _cfg(tmp_path), run.evidence)
    assert checks and any(not r.passed for r in results)
    rep = run.evidence.report
    if fault == "crash":  # the task owning the crashing file did not end cleanly
        assert rep.failed or rep.salvaged
        assert run.evidence.event_counts.get("task_retry", 0) >= 1
    else:  # liar and stub: the swarm claims success
        assert run.outcome.exit_code == 0 and rep.failed == []
    if fault == "stub":
        assert "NotImplementedError" in "".join(p.read_text() for p in run.workspace.rglob("*.py"))


def test_narrator_task_reports_done_with_zero_tool_calls_in_its_session(tmp_path):
    run = run_goose(tmp_path, PROMPT, SWARMGYM_SIM_FORCE="narrator")
    rep = run.evidence.report
    silent = [t for t in rep.tasks if not run.evidence.traces[t.session_id].tool_calls]
    assert len(silent) == 1
    task = silent[0]
    assert task.status == "done" and run.evidence.traces[task.session_id].found
    assert run.evidence.traces[task.session_id].messages >= 2  # it talked, it did not act
    plan = next(e for e in run.evidence.events if e["event"] == "plan_loaded")
    files = next(t["files"] for t in plan["tasks"] if t["id"] == task.task_id)
    assert files and not any((run.workspace / f).exists() for f in files)


def test_starved_device_gets_zero_dispatches(tmp_path):
    run = run_goose(tmp_path, PROMPT, SWARMGYM_SIM_FORCE="starved")
    disp = run.evidence.report.dispatched_per_device
    starved = [d for d, n in disp.items() if n == 0]
    assert len(starved) == 1
    assert {p.id for p in run.evidence.pool if p.enabled} >= set(starved)
    devices = {e["device"] for e in run.evidence.events if e["event"] == "task_dispatched"}
    assert starved[0] not in devices


def test_hang_is_killed_with_exit_124_and_leaves_no_process(tmp_path):
    run = run_goose(tmp_path, PROMPT, timeout=6, SWARMGYM_SIM_FORCE="hang")  # start-up takes seconds under load
    assert run.outcome.exit_code == 124 and run.outcome.timed_out
    assert run.outcome.wall_secs >= 6  # killed at its timeout, not before
    leftovers = []  # the sim and the worker it spawned both run in the workspace
    for p in psutil.process_iter(["cwd", "status"]):
        try:
            if p.info["status"] != psutil.STATUS_ZOMBIE and p.info["cwd"] == str(run.workspace):
                leftovers.append(p.pid)
        except psutil.Error:
            continue
    assert leftovers == []
    # what the swarm logged before it hung is still evidence
    assert run.evidence.run.report_source == "events"  # rebuilt by collect, from its one read of the log
    assert any("cut mid-line" in p for p in run.evidence.problems)
    assert any(t.status == "incomplete" for t in run.evidence.report.tasks)


def test_garbage_stdout_rebuilds_tasks_from_the_event_log(tmp_path):
    run = run_goose(tmp_path, PROMPT, SWARMGYM_SIM_FORCE="garbage")
    assert run.evidence.run.report_source == "events"
    with pytest.raises(ValueError):
        json.loads(run.outcome.stdout_tail)
    completed = [e["task_id"] for e in run.evidence.events if e["event"] == "task_completed"]
    assert sorted(t.task_id for t in run.evidence.report.tasks) == sorted(completed)
    assert any("not JSON" in p for p in run.evidence.problems)


def test_mcp_servers_reach_the_swarm_and_show_as_mcp_calls(tmp_path):
    from swarmgym.adapters import get_adapter
    from swarmgym.collect import collect
    from tests.support.simrun import goose_cfg, sim_env

    cfg = goose_cfg(tmp_path)
    ws = tmp_path / "ws"
    env = sim_env(tmp_path, SWARMGYM_SIM_FORCE="reference")
    out = get_adapter("goose", cfg).run(PROMPT, ws, mcp=["context7"], env=env)
    assert out.argv[-2:] == ["--mcp", "context7"]
    ev = collect(ws, out, cfg)
    assert sum(t.mcp_calls for t in ev.traces.values()) == 1
    assert sum(s.mcp_calls for s in ev.report.per_device.values()) == 1


def test_each_run_reads_only_its_own_sessions_and_starts_from_the_pristine_config(tmp_path):
    from swarmgym.adapters import get_adapter
    from swarmgym.adapters.provenance import swarm_provenance
    from swarmgym.collect.traces import connect_ro
    from tests.support.simrun import goose_cfg, sim_env

    pristine = tmp_path / "goose" / "config"  # sim_env's GOOSE_PATH_ROOT: the operator's goose root
    pristine.mkdir(parents=True)
    (pristine / "config.yaml").write_text("GOOSE_PROVIDER: lmstudio\n")
    first = run_goose(tmp_path, PROMPT, name="a", SWARMGYM_SIM_FORCE="reference")
    second = run_goose(tmp_path, PROMPT, name="b", SWARMGYM_SIM_FORCE="reference", SWARMGYM_SIM_SEED="2")
    assert first.outcome.sessions_db != second.outcome.sessions_db
    with connect_ro(Path(second.outcome.sessions_db)) as db:
        ids = {r[0] for r in db.execute("SELECT DISTINCT session_id FROM messages")}
    assert ids == {t.session_id for t in second.evidence.report.tasks}  # none of the first run's
    assert not (tmp_path / "goose" / "data").exists()  # the operator's root got no sessions
    adapter = get_adapter("goose", goose_cfg(tmp_path))
    prov = swarm_provenance(adapter, "goose", sim_env(tmp_path), seed=1, suite_hash=None, host="h")
    assert prov.goose_config_hash is not None and prov.goose_config_hash.startswith("sha256:")
    (pristine / "config.yaml").write_text("GOOSE_PROVIDER: other\n")
    assert swarm_provenance(adapter, "goose", sim_env(tmp_path), seed=1, suite_hash=None,
                            host="h").goose_config_hash != prov.goose_config_hash
