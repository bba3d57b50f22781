"""``command_succeeds``: a real ``bash -c`` in the grading's check box."""
from __future__ import annotations

from swarmgym.config import load_config
from swarmgym.suitekit.suite import Check
from tests.support.grading import check_result, check_results


def cmd(run: str, **kw) -> Check:
    return Check(name="c", kind="command_succeeds", run=run, **kw)


def test_command_succeeds_passes_on_exit_zero_and_keeps_output(ws, cfg):
    r = check_result(cmd("ls pkg && echo done"), ws, cfg)
    assert r.passed and r.exit_code == 0 and "core.py" in r.stdout_tail and "done" in r.stdout_tail


def test_command_succeeds_fails_on_nonzero_exit(ws, cfg):
    r = check_result(cmd("echo oops >&2; exit 4"), ws, cfg)
    assert not r.passed and r.exit_code == 4 and "oops" in r.stderr_tail and r.detail == "exit 4"


def test_command_that_hangs_fails_as_timed_out(ws, cfg):
    r = check_result(cmd("sleep 30", timeout=0.5), ws, cfg)
    assert not r.passed and r.timed_out and r.duration_s < 5
    assert "killed" in r.detail


def test_the_gradings_check_timeout_applies_when_the_check_has_none(ws, cfg):
    [r] = check_results([cmd("sleep 30")], ws, cfg, check_timeout=0.5)
    assert r.timed_out


def test_check_does_not_see_configured_secrets(ws, tmp_path, monkeypatch):
    home = tmp_path / "home2"
    home.mkdir()
    (home / "config.yaml").write_text("secrets: [LAB_PASS_PHRASE]\n")
    monkeypatch.setenv("LAB_PASS_PHRASE", "hunter2")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-xyz")
    cfg = load_config(home)
    r = check_result(cmd("env; test -z \"$LAB_PASS_PHRASE\" && test -z \"$OPENAI_API_KEY\""), ws, cfg)
    assert r.passed
    assert "hunter2" not in r.stdout_tail and "sk-xyz" not in r.stdout_tail


def test_checks_come_back_one_result_each_in_order_with_their_time(ws, cfg):
    checks = [cmd("true"), Check(name="f", kind="file_exists", path="nope"), cmd("sleep 0.3; false")]
    checks = [c.model_copy(update={"name": f"c{i}"}) for i, c in enumerate(checks)]
    results = check_results(checks, ws, cfg)
    assert [(r.name, r.kind, r.passed) for r in results] == [
        ("c0", "command_succeeds", True), ("c1", "file_exists", False), ("c2", "command_succeeds", False)]
    assert results[2].duration_s >= 0.3
