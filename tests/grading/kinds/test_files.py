"""``file_exists``, ``file_contains``, ``file_matches``: the workspace's own files, never outside it."""
from __future__ import annotations

from swarmgym.suitekit.suite import Check
from tests.support.grading import check_result


def test_file_exists_with_glob_and_plain_path(ws, cfg):
    assert check_result(Check(name="f", kind="file_exists", path="pkg/*.py"), ws, cfg).passed
    assert check_result(Check(name="f", kind="file_exists", path="README.md"), ws, cfg).passed
    missing = check_result(Check(name="f", kind="file_exists", path="tests/test_*.py"), ws, cfg)
    assert not missing.passed and "no file matches" in missing.detail


def test_file_checks_never_look_outside_the_workspace(ws, cfg, tmp_path):
    (tmp_path / "outside.txt").write_text("secret")
    (ws / "link.txt").symlink_to(tmp_path / "outside.txt")
    for path in ["../outside.txt", str(tmp_path / "outside.txt"), "link.txt"]:
        r = check_result(Check(name="f", kind="file_contains", path=path, text="secret"), ws, cfg)
        assert not r.passed, path


def test_file_contains_is_a_literal_substring(ws, cfg):
    assert check_result(Check(name="f", kind="file_contains", path="README.md", text="report value"), ws, cfg).passed
    r = check_result(Check(name="f", kind="file_contains", path="README.md", text="report.value"), ws, cfg)
    assert not r.passed and r.detail == "'report.value' not found in README.md"


def test_file_matches_uses_a_multiline_regex_over_globbed_files(ws, cfg):
    ok = Check(name="f", kind="file_matches", path="pkg/*.py", pattern=r"^import sqlite3$")
    bad = Check(name="f", kind="file_matches", path="pkg/*.py", pattern=r"^\s*eval\(")
    assert check_result(ok, ws, cfg).detail == "found in pkg/core.py"
    r = check_result(bad, ws, cfg)
    assert not r.passed and r.detail == r"^\s*eval\( not found in pkg/*.py"
