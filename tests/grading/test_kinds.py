"""The registry of check kinds: the suite loader's kinds and the grading's table name the same kinds, and a
kind added to the table is graded through ``grade()`` like the built-in ones."""
from __future__ import annotations

import pytest
import yaml

from swarmgym.core.errors import SuiteError
from swarmgym.grading import kinds
from swarmgym.grading.context import GradingContext
from swarmgym.grading.grade import CHECKS, grade
from swarmgym.grading.kinds import KINDS, get_kind, register_kind, result
from swarmgym.models import CheckResult
from swarmgym.suitekit.suite import CHECK_KINDS, KIND_KEYS, Check, load_suite


def test_the_suite_loader_and_the_registry_know_the_same_kinds():
    assert list(KINDS) == list(CHECK_KINDS) == list(KIND_KEYS)
    assert all(kind.name == name for name, kind in KINDS.items())


def test_a_suite_naming_a_kind_the_registry_lacks_is_a_one_line_load_error(tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "suite.yaml").write_text(yaml.safe_dump({"name": "s", "specs": [{
        "id": "a", "app_slug": "a", "prompt": "p", "hard_prompt": "p",
        "checks": [{"name": "c", "kind": "output_equals", "run": "true"}]}]}))
    with pytest.raises(SuiteError) as err:
        load_suite(folder)
    assert "\n" not in str(err.value)
    assert "unknown check kind 'output_equals'; expected one of command_succeeds, file_exists" in str(err.value)


def test_looking_up_an_unregistered_kind_names_the_known_ones():
    with pytest.raises(SuiteError, match=r"^unknown check kind 'lint_score'; expected one of command_succeeds, "):
        get_kind("lint_score")


class LineCount:
    """A kind the suite loader does not list yet (a new kind also goes into suitekit's ``CheckKind``): the
    workspace file ``path`` has at least ``text`` lines, counted by the app's box, decided out here."""

    name = "line_count"

    def __init__(self) -> None:
        self.contexts: list[GradingContext] = []

    def run(self, check: Check, ctx: GradingContext) -> CheckResult:
        self.contexts.append(ctx)
        res = ctx.box(f"wc -l < {check.path}", timeout=ctx.timeout_for(check))
        lines = int(res.stdout_tail.strip() or 0)
        return result(check, lines >= int(check.text or 0), f"{lines} line(s)", exit_code=res.exit_code)


def test_a_kind_added_to_the_registry_is_graded_through_grade_in_the_gradings_box(tmp_path, cfg, monkeypatch):
    monkeypatch.setattr(kinds, "KINDS", dict(KINDS))  # the test's own copy of the table
    kind = LineCount()
    register_kind(kind)
    (tmp_path / "notes.txt").write_text("a\nb\nc\n")
    many = Check.model_construct(name="many", kind="line_count", path="notes.txt", text="3")
    too_many = Check.model_construct(name="too_many", kind="line_count", path="notes.txt", text="4")
    exists = Check(name="exists", kind="file_exists", path="notes.txt")
    v = grade(tmp_path, [many, exists, too_many], cfg, dimensions=CHECKS)
    got = [(r.name, r.kind, r.passed, r.detail) for r in v.check_results()]
    assert got == [("many", "line_count", True, "3 line(s)"), ("exists", "file_exists", True, "1 file(s) match notes.txt"),
                   ("too_many", "line_count", False, "3 line(s)")]
    assert v.dimensions["checks"].summary == "2/3 checks passed; failed: too_many" and not v.functional
    assert len(kind.contexts) == 2 and kind.contexts[0] is kind.contexts[1]  # one grading, one context
    assert v.check_results()[0].duration_s > 0
    assert "line_count" not in KINDS  # the built-in table is as it was


def test_a_check_of_an_unregistered_kind_stops_the_grading_before_any_check_runs(tmp_path, cfg):
    first = Check(name="first", kind="command_succeeds", run="touch ran")
    odd = Check.model_construct(name="odd", kind="lint_score")
    with pytest.raises(SuiteError, match="unknown check kind 'lint_score'"):
        grade(tmp_path, [first, odd], cfg, dimensions=CHECKS, strict=True)
    assert not (tmp_path / "ran").exists()
