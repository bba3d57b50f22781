"""The golden-check runner: every check kind, on real workspaces and real subprocesses."""
from __future__ import annotations

import pytest

from swarmgym.config import load_config
from swarmgym.grading.checks import run_check, run_checks, tool_names
from swarmgym.models import Evidence, RunOutcome, RunReport, SessionTrace, TaskOutcome, ToolCall
from swarmgym.suitekit.suite import Check


@pytest.fixture
def cfg(tmp_path):
    return load_config(tmp_path / "home", environ={})


@pytest.fixture
def ws(tmp_path):
    d = tmp_path / "ws"
    (d / "pkg").mkdir(parents=True)
    (d / "pkg" / "core.py").write_text("import sqlite3\n\ndef total(items):\n    return sum(items)\n")
    (d / "README.md").write_text("Run `report value` to see the total.\n")
    return d


def cmd(run: str, **kw) -> Check:
    return Check(name="c", kind="command_succeeds", run=run, **kw)


def test_command_succeeds_passes_on_exit_zero_and_keeps_output(ws, cfg):
    r = run_check(cmd("ls pkg && echo done"), ws, cfg)
    assert r.passed and r.exit_code == 0 and "core.py" in r.stdout_tail and "done" in r.stdout_tail


def test_command_succeeds_fails_on_nonzero_exit(ws, cfg):
    r = run_check(cmd("echo oops >&2; exit 4"), ws, cfg)
    assert not r.passed and r.exit_code == 4 and "oops" in r.stderr_tail and r.detail == "exit 4"


def test_command_that_hangs_fails_as_timed_out(ws, cfg):
    r = run_check(cmd("sleep 30", timeout=0.5), ws, cfg)
    assert not r.passed and r.timed_out and r.duration_s < 5
    assert "killed" in r.detail


def test_run_checks_timeout_argument_applies_when_the_check_has_none(ws, cfg):
    [r] = run_checks([cmd("sleep 30")], ws, cfg, timeout=0.5)
    assert r.timed_out


def test_check_does_not_see_configured_secrets(ws, tmp_path, monkeypatch):
    home = tmp_path / "home2"
    home.mkdir()
    (home / "config.yaml").write_text("secrets: [LAB_PASS_PHRASE]\n")
    monkeypatch.setenv("LAB_PASS_PHRASE", "hunter2")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-xyz")
    cfg = load_config(home)
    r = run_check(cmd("env; test -z \"$LAB_PASS_PHRASE\" && test -z \"$OPENAI_API_KEY\""), ws, cfg)
    assert r.passed
    assert "hunter2" not in r.stdout_tail and "sk-xyz" not in r.stdout_tail


def test_file_exists_with_glob_and_plain_path(ws, cfg):
    assert run_check(Check(name="f", kind="file_exists", path="pkg/*.py"), ws, cfg).passed
    assert run_check(Check(name="f", kind="file_exists", path="README.md"), ws, cfg).passed
    missing = run_check(Check(name="f", kind="file_exists", path="tests/test_*.py"), ws, cfg)
    assert not missing.passed and "no file matches" in missing.detail


def test_file_checks_never_look_outside_the_workspace(ws, cfg, tmp_path):
    (tmp_path / "outside.txt").write_text("secret")
    (ws / "link.txt").symlink_to(tmp_path / "outside.txt")
    for path in ["../outside.txt", str(tmp_path / "outside.txt"), "link.txt"]:
        r = run_check(Check(name="f", kind="file_contains", path=path, text="secret"), ws, cfg)
        assert not r.passed, path


def test_file_contains_is_a_literal_substring(ws, cfg):
    assert run_check(Check(name="f", kind="file_contains", path="README.md", text="report value"), ws, cfg).passed
    r = run_check(Check(name="f", kind="file_contains", path="README.md", text="report.value"), ws, cfg)
    assert not r.passed and "not found" in r.detail


def test_file_matches_uses_a_multiline_regex_over_globbed_files(ws, cfg):
    ok = Check(name="f", kind="file_matches", path="pkg/*.py", pattern=r"^import sqlite3$")
    bad = Check(name="f", kind="file_matches", path="pkg/*.py", pattern=r"^\s*eval\(")
    assert run_check(ok, ws, cfg).passed
    assert not run_check(bad, ws, cfg).passed


def _evidence() -> Evidence:
    report = RunReport(tasks=[TaskOutcome(task_id="t1", status="done",
                                          tool_calls=[ToolCall(name="developer__text_editor")])])
    return Evidence(
        workspace="/ws",
        run=RunOutcome(adapter="sim", exit_code=0, report=report),
        traces={"s1": SessionTrace(session_id="s1", tool_calls=[ToolCall(name="context7__get-library-docs",
                                                                          is_mcp=True)])},
        events=[{"event": "task_completed", "tool_calls": [{"name": "websearch__search"}]}],
    )


@pytest.mark.parametrize("tool, expected", [
    ("context7__get-library-docs", True),   # exact name from a session trace
    ("get-library-docs", True),             # the suffix after '__' matches too
    ("search", True),                       # from a task_completed event
    ("text_editor", True),                  # from the RunReport's tasks
    ("fetch", False),
    ("docs", False),                        # a bare substring is not a match
])
def test_tool_called_reads_the_swarm_evidence(ws, cfg, tool, expected):
    r = run_check(Check(name="t", kind="tool_called", tool=tool), ws, cfg, evidence=_evidence())
    assert r.passed is expected


def test_tool_called_without_evidence_fails_and_says_why(ws, cfg):
    r = run_check(Check(name="t", kind="tool_called", tool="search"), ws, cfg)
    assert not r.passed and r.detail == "no swarm evidence"


def test_tool_names_collects_every_source():
    assert sorted(tool_names(_evidence())) == ["context7__get-library-docs", "developer__text_editor",
                                               "websearch__search"]


def test_run_checks_returns_one_result_per_check_in_order(ws, cfg):
    checks = [cmd("true"), Check(name="f", kind="file_exists", path="nope"), cmd("false")]
    checks = [c.model_copy(update={"name": f"c{i}"}) for i, c in enumerate(checks)]
    results = run_checks(checks, ws, cfg)
    assert [(r.name, r.passed) for r in results] == [("c0", True), ("c1", False), ("c2", False)]
