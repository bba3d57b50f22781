"""Brain-written checks are validated, then run in the suite's sandbox: they cannot reach out."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from swarmgym.config import load_config
from swarmgym.explore.schemas import NextMove, Opener, merge_checks
from swarmgym.suitekit.suite import Check
from tests.support.grading import check_results

BASE = {"app_slug": "tally", "prompt": "build tally", "checks": [{"name": "runs", "kind": "command_succeeds",
                                                                  "run": "python3 -m tally --help"}]}


@pytest.mark.parametrize("path", ["../../etc/passwd", "/etc/passwd", "a/../../b", "~/.ssh/id_rsa", "..\\x"])
def test_a_check_path_that_escapes_the_workspace_is_rejected(path):
    bad = {**BASE, "checks": [{"name": "peek", "kind": "file_contains", "path": path, "text": "root"}]}
    with pytest.raises(ValidationError, match="relative to the app workspace"):
        Opener.model_validate(bad)


def test_only_the_five_check_kinds_exist():
    with pytest.raises(ValidationError):
        Opener.model_validate({**BASE, "checks": [{"name": "x", "kind": "http_get", "run": "curl x"}]})


def test_a_check_command_does_not_see_secrets(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-super-secret")
    monkeypatch.setenv("CONTEXT7_API_KEY", "c7-secret")
    cfg = load_config(tmp_path, environ={})
    op = Opener.model_validate({**BASE, "checks": [
        {"name": "leak", "kind": "command_succeeds", "run": 'test -n "$ANTHROPIC_API_KEY$CONTEXT7_API_KEY"'},
        {"name": "dump", "kind": "command_succeeds", "run": "env | grep -qe sk-ant-super -e c7-secret"}]})
    res = check_results(op.checks, tmp_path, cfg)
    assert [r.passed for r in res] == [False, False]


def test_the_file_readers_refuse_paths_outside_even_if_validation_were_skipped(tmp_path):
    cfg = load_config(tmp_path, environ={})
    ws = tmp_path / "ws"
    ws.mkdir()
    raw = Check(name="peek", kind="file_contains", path="../../../../etc/passwd", text="root")
    assert check_results([raw], ws, cfg)[0].passed is False


def test_next_move_needs_a_prompt_unless_done():
    with pytest.raises(ValidationError, match="needs a prompt"):
        NextMove.model_validate({"move": "feature", "prompt": "  "})
    assert NextMove.model_validate({"move": "done"}).move == "done"
    with pytest.raises(ValidationError):
        NextMove.model_validate({"move": "rewrite-in-rust", "prompt": "go"})


def test_checks_accumulate_and_a_reused_name_is_renamed():
    a = Check(name="runs", kind="file_exists", path="x")
    b = Check(name="runs", kind="file_exists", path="y")
    merged = merge_checks([a], [a, b], 3)
    assert [c.name for c in merged] == ["runs", "runs-t3"]
