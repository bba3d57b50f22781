"""``grade_workspace``: the plain API behind ``swarmgym verify PATH``."""
from __future__ import annotations

import pytest

from swarmgym.config import load_config
from swarmgym.core.errors import IsolationError
from swarmgym.grading.workspace import grade_workspace
from swarmgym.isolation import BACKENDS
from tests.support.queue import tiny_settings


@pytest.fixture
def cfg(tmp_path):
    return load_config(tmp_path / "home", environ={}, overrides={"suites_dir": tiny_settings(tmp_path / "home")["suites_dir"]})


def test_a_workspace_without_swarm_evidence_is_graded_only_on_what_it_shows(tmp_path, cfg):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "out.txt").write_text("ok\n")
    suite, spec, verdict = grade_workspace(cfg, "tiny-v1", "touch", ws)
    assert (suite.name, spec.id) == ("tiny-v1", "touch")
    assert list(verdict.dimensions) == ["checks", "diagnostics"]  # no swarm, no cluster: never computed
    assert verdict.overall == "pass" and verdict.functional


def test_a_workspace_with_swarm_evidence_is_graded_on_every_dimension(tmp_path, cfg):
    ws = tmp_path / "ws"
    (ws / ".swarm").mkdir(parents=True)
    _, _, verdict = grade_workspace(cfg, "tiny-v1", "touchapp", ws)
    assert list(verdict.dimensions) == ["checks", "cluster", "diagnostics", "swarm"]
    assert verdict.status("checks") == "fail" and not verdict.functional


def test_no_working_box_is_a_one_line_error_before_anything_is_graded(tmp_path, cfg, monkeypatch):
    class Broken:
        name = "bwrap"

        def available(self) -> str:
            return "bwrap cannot create a box here (test)"

    monkeypatch.setitem(BACKENDS, "bwrap", Broken())
    ws = tmp_path / "ws"
    ws.mkdir()
    with pytest.raises(IsolationError, match=r"^--isolation bwrap: bwrap cannot create a box here \(test\)"):
        grade_workspace(cfg.model_copy(update={"sandbox": cfg.sandbox.model_copy(update={"backend": "bwrap"})}),
                        "tiny-v1", "touch", ws)
