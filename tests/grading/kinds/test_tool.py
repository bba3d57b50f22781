"""``tool_called``: the swarm evidence shows the tool's call."""
from __future__ import annotations

import pytest

from swarmgym.grading.kinds import tool_names
from swarmgym.models import Evidence, RunOutcome, RunReport, SessionTrace, TaskOutcome, ToolCall
from swarmgym.suitekit.suite import Check
from tests.support.grading import check_result


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
    r = check_result(Check(name="t", kind="tool_called", tool=tool), ws, cfg, evidence=_evidence())
    assert r.passed is expected


def test_a_tool_never_called_says_how_many_calls_were_seen(ws, cfg):
    r = check_result(Check(name="t", kind="tool_called", tool="fetch"), ws, cfg, evidence=_evidence())
    assert r.detail == "fetch never called (3 tool calls seen)"


def test_tool_called_without_evidence_fails_and_says_why(ws, cfg):
    r = check_result(Check(name="t", kind="tool_called", tool="search"), ws, cfg)
    assert not r.passed and r.detail == "no swarm evidence"


def test_tool_names_collects_every_source():
    assert sorted(tool_names(_evidence())) == ["context7__get-library-docs", "developer__text_editor",
                                               "websearch__search"]
