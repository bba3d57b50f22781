"""One grading, one check box: the isolation backend is resolved once per grading, whatever its checks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from swarmgym.config import load_config
from swarmgym.grading.grade import CHECKS, grade
from swarmgym.isolation import BACKENDS, Policy
from swarmgym.suitekit.suite import Check


class Counting:
    """The real ``none`` backend, counting how often it is asked whether it works and to wrap a command."""

    name = "none"

    def __init__(self, real) -> None:
        self.real, self.available_calls, self.wrapped = real, 0, 0

    def available(self) -> str | None:
        self.available_calls += 1
        return self.real.available()

    def wrap(self, argv: list[str], policy: Policy, private_tmp: Path | str | None = None) -> list[str]:
        self.wrapped += 1
        return self.real.wrap(argv, policy, private_tmp)


@pytest.fixture
def backend(monkeypatch):
    counting = Counting(BACKENDS["none"])
    monkeypatch.setitem(BACKENDS, "none", counting)
    return counting


@pytest.fixture
def app(tmp_path):
    ws = tmp_path / "ws"
    (ws / "echoapp").mkdir(parents=True)
    (ws / "echoapp" / "__main__.py").write_text("import sys\nprint(' '.join(sys.argv[1:]))\n")
    (tmp_path / "table.json").write_text(json.dumps({"rows": [
        {"id": f"r{i}", "req": [], "steps": [{"argv": ["say", str(i)], "exit": 0, "out": "exact",
                                              "stdout": f"say {i}\n"}]} for i in range(3)]}))
    return ws


def test_the_backend_is_resolved_once_per_grading_for_every_check_that_runs_in_a_box(tmp_path, app, backend):
    cfg = load_config(tmp_path / "home", environ={}, overrides={"sandbox.backend": "none"})
    table = Check(name="golden", kind="differential", table="table.json", module="echoapp")
    table._root = tmp_path
    checks = [Check(name=f"c{i}", kind="command_succeeds", run=f"python3 -m echoapp {i} | grep -qx {i}")
              for i in range(3)] + [table, Check(name="f", kind="file_exists", path="echoapp/*.py")]
    v = grade(app, checks, cfg, dimensions=CHECKS)
    assert [r.passed for r in v.check_results()] == [True] * 5, v.check_results()
    assert backend.available_calls == 1  # one grading: resolved once
    assert backend.wrapped == 4  # three commands and the table's fast path, each in a box
    grade(app, checks, cfg, dimensions=CHECKS)
    assert backend.available_calls == 2  # the next grading resolves its own


def test_a_grading_with_no_boxed_check_resolves_no_backend(tmp_path, app, backend):
    cfg = load_config(tmp_path / "home", environ={}, overrides={"sandbox.backend": "none"})
    v = grade(app, [Check(name="f", kind="file_exists", path="echoapp/*.py")], cfg)
    assert v.functional and backend.available_calls == 0 and backend.wrapped == 0


def test_the_table_checks_of_one_app_run_their_fast_paths_in_one_box_and_fail_alone(tmp_path, app, backend):
    cfg = load_config(tmp_path / "home", environ={}, overrides={"sandbox.backend": "none"})
    (tmp_path / "wrong.json").write_text(json.dumps({"rows": [
        {"id": "wrong", "req": [], "steps": [{"argv": ["say", "1"], "exit": 0, "out": "exact", "stdout": "say 2\n"}]}]}))
    checks = [Check(name="golden", kind="rows", table="table.json", module="echoapp"),
              Check(name="exact", kind="rows", table="table.json", module="echoapp"),
              Check(name="lenient", kind="differential", table="table.json", module="echoapp"),
              Check(name="wrong", kind="rows", table="wrong.json", module="echoapp")]
    for c in checks:
        c._root = tmp_path
    v = grade(app, checks, cfg, dimensions=CHECKS)
    assert [(r.name, r.passed) for r in v.check_results()] == [("golden", True), ("exact", True), ("lenient", True),
                                                              ("wrong", False)]
    assert "wrong `say 1`" in v.check_results()[-1].detail
    assert backend.wrapped == 2  # the four fast paths in one box, the one disagreeing row's confirmation in another
