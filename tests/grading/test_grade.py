import logging

import pytest

from swarmgym.core.errors import SuiteError, UsageError
from swarmgym.grading.grade import CHECKS, DIMENSIONS, WORKSPACE, grade
from swarmgym.grading.verdict import compose
from swarmgym.models import (
    TRACE_CHARS,
    TRACE_FRAMES,
    DimensionResult,
    ErrorInfo,
    Finding,
    HostSample,
    PoolDevice,
    TaskOutcome,
    Verdict,
)
from swarmgym.suitekit.suite import Check
from tests.support.evidence import make_evidence

OK = Check(name="ok", kind="command_succeeds", run="python3 -c 'print(1+1)' | grep -q 2")
BAD = Check(name="bad", kind="command_succeeds", run="python3 -c 'print(3)' | grep -q 2")


def test_clean_run_with_passing_checks_is_pass_and_functional(tmp_path, cfg):
    v = grade(tmp_path, [OK], cfg, evidence=make_evidence(tmp_path))
    assert v.overall == "pass" and v.functional
    assert {d: v.status(d) for d in ("checks", "swarm", "cluster", "diagnostics")} == {
        "checks": "pass", "swarm": "pass", "cluster": "pass", "diagnostics": "pass"}


def test_failing_golden_check_fails_verdict_and_names_the_check(tmp_path, cfg):
    v = grade(tmp_path, [OK, BAD], cfg, evidence=make_evidence(tmp_path))
    assert v.overall == "fail" and not v.functional
    assert any("'bad'" in f.message and f.severity == "high" for f in v.findings)


def test_starved_device_raises_cluster_finding_and_fails_cluster(tmp_path, cfg):
    ev = make_evidence(tmp_path, dispatched={"a": 4, "b": 0})
    v = grade(tmp_path, [OK], cfg, evidence=ev)
    assert v.status("cluster") == "fail"
    assert any("device b starved" in f.message for f in v.findings)
    assert v.dimensions["cluster"].data["idle_nodes"] == ["b"]
    assert v.functional and v.overall == "fail"


def test_fair_share_flags_an_underused_device(tmp_path, cfg):
    pool = [PoolDevice(id="a", weight=1), PoolDevice(id="b", weight=1)]
    v = grade(tmp_path, [OK], cfg, evidence=make_evidence(tmp_path, dispatched={"a": 10, "b": 2}, pool=pool))
    shares = {r["device"]: r for r in v.dimensions["cluster"].data["shares"]}
    assert shares["b"]["fair"] == 6.0 and shares["b"]["state"] == "underused"
    assert v.status("cluster") == "partial"


def test_a_heavy_weight_device_on_a_small_plan_is_not_underused(tmp_path, cfg):
    # goose's weight caps tasks in flight; 3 tasks over 3 devices is one each, whatever the caps
    pool = [PoolDevice(id="a", weight=1), PoolDevice(id="b", weight=1), PoolDevice(id="big", weight=6)]
    v = grade(tmp_path, [OK], cfg, evidence=make_evidence(tmp_path, dispatched={"a": 1, "b": 1, "big": 1}, pool=pool))
    assert v.status("cluster") == "pass" and v.dimensions["cluster"].data["idle_nodes"] == []


def test_one_run_never_raises_a_high_cluster_alarm(tmp_path, cfg):
    v = grade(tmp_path, [OK], cfg, evidence=make_evidence(tmp_path, dispatched={"a": 4, "b": 0}))
    assert not any(f.severity == "high" for f in v.findings if f.dimension == "cluster")


def test_starved_device_on_idle_host_is_confirmed_idle(tmp_path, cfg):
    samples = [HostSample(ts=i, cpu_percent=3.0, mem_percent=20, load1=0.1) for i in range(5)]
    pool = [PoolDevice(id="a", host="h1"), PoolDevice(id="b", host="h1")]
    ev = make_evidence(tmp_path, dispatched={"a": 4, "b": 0}, pool=pool, host="h1", samples=samples)
    v = grade(tmp_path, [OK], cfg, evidence=ev)
    assert any("confirmed idle" in f.message for f in v.findings)


def test_disabled_device_is_not_starved(tmp_path, cfg):
    pool = [PoolDevice(id="a"), PoolDevice(id="b", enabled=False)]
    v = grade(tmp_path, [OK], cfg, evidence=make_evidence(tmp_path, dispatched={"a": 4}, pool=pool))
    assert v.status("cluster") == "pass"


def test_narrator_task_with_zero_tool_calls_raises_diagnostics_finding(tmp_path, cfg):
    tasks = [TaskOutcome(task_id="t1", status="done", device="a", model="qwen", session_id="s1", tool_calls=[]),
             TaskOutcome(task_id="t2", status="done", device="b", model="qwen", session_id="s2",
                         tool_calls=[{"name": "developer__shell"}])]
    v = grade(tmp_path, [OK], cfg, evidence=make_evidence(tmp_path, dispatched={"a": 1, "b": 1}, tasks=tasks))
    assert v.status("diagnostics") == "fail"
    assert any("narration: task t1" in f.message for f in v.findings)
    assert v.dimensions["diagnostics"].data["by_model"]["qwen"]["narration"] == 1


def test_placeholder_nothing_overrides_is_a_blocker_with_file_and_line(tmp_path, cfg):
    (tmp_path / "app.py").write_text("def f():\n    # TODO later\n    raise NotImplementedError\n")
    v = grade(tmp_path, [OK], cfg)
    msgs = [f.message for f in v.findings]
    assert any(m.startswith("placeholder at app.py:3") for m in msgs) and "TODO at app.py:2" in msgs
    assert v.status("diagnostics") == "fail"


ABSTRACT_BASE = """import sys


class Command:
    name = ""

    def run(self, args):
        \"\"\"Do the command.\"\"\"
        raise NotImplementedError


class Add(Command):
    name = "add"

    def run(self, args):
        return sum(int(a) for a in args)


class Neg(Add):
    name = "neg"

    def run(self, args):
        return -int(args[0])


if __name__ == "__main__":
    print({c.name: c for c in (Add(), Neg())}[sys.argv[1]].run(sys.argv[2:]))
"""


def test_abstract_base_method_every_subclass_overrides_is_no_blocker(tmp_path, cfg):
    (tmp_path / "app.py").write_text(ABSTRACT_BASE)
    check = Check(name="adds", kind="command_succeeds", run="python3 app.py add 2 3 | grep -qx 5")
    v = grade(tmp_path, [check], cfg, evidence=make_evidence(tmp_path))
    assert v.status("checks") == "pass" and v.status("diagnostics") == "pass"
    assert v.overall == "pass"


def test_abstractmethod_placeholder_is_no_blocker_but_a_lone_one_is(tmp_path, cfg):
    (tmp_path / "base.py").write_text("from abc import ABC, abstractmethod\n\n\nclass Store(ABC):\n"
                                      "    @abstractmethod\n    def get(self, k):\n        raise NotImplementedError\n")
    assert grade(tmp_path, [OK], cfg).status("diagnostics") == "pass"
    (tmp_path / "extra.py").write_text("class Exporter:\n    def dump(self):\n        raise NotImplementedError\n")
    v = grade(tmp_path, [OK], cfg)
    assert v.status("diagnostics") == "fail"
    assert any(m.message.startswith("placeholder at extra.py:3") for m in v.findings)


def test_stub_reached_by_a_failing_check_is_a_blocker_at_the_frame_that_raised(tmp_path, cfg):
    (tmp_path / "calc.py").write_text("import sys\n\n\ndef power(a, b):\n    if b == 0:\n        return 1\n"
                                      "    raise NotImplementedError('TODO: powers')\n\n\n"
                                      "print(power(int(sys.argv[1]), int(sys.argv[2])))\n")
    check = Check(name="pow", kind="command_succeeds", run="python3 calc.py 2 3 | grep -qx 8")
    v = grade(tmp_path, [check], cfg)
    assert v.status("diagnostics") == "fail"
    assert any(m.message.startswith("reached stub at calc.py:7") for m in v.findings)
    # the same stub no check reaches is only a smell
    check0 = Check(name="pow0", kind="command_succeeds", run="python3 calc.py 2 0 | grep -qx 1")
    assert grade(tmp_path, [check0], cfg).status("diagnostics") == "partial"


def test_timed_out_swarm_fails_swarm_dimension(tmp_path, cfg):
    v = grade(tmp_path, [OK], cfg, evidence=make_evidence(tmp_path, exit_code=124, timed_out=True))
    assert v.status("swarm") == "fail" and v.overall == "fail"


def test_crashing_dimension_is_recorded_as_error_and_verdict_still_computed(tmp_path, cfg, monkeypatch):
    def explodes(ctx):
        raise ZeroDivisionError("boom")
    monkeypatch.setitem(DIMENSIONS, "explodes", explodes)
    v = grade(tmp_path, [OK], cfg, evidence=make_evidence(tmp_path))
    d = v.dimensions["explodes"]
    assert d.status == "error" and d.error.type == "ZeroDivisionError"
    assert v.functional and v.overall == "partial"


def _share_of(total, parts):
    return total / parts


def test_a_crashed_dimension_keeps_its_traceback_naming_where_it_failed_and_logs_it(tmp_path, cfg, caplog,
                                                                                  monkeypatch):
    def divides(ctx):
        return _share_of(4, 0)
    monkeypatch.setitem(DIMENSIONS, "divides", divides)
    with caplog.at_level(logging.ERROR, logger="swarmgym.grading.grade"):
        v = grade(tmp_path, [OK], cfg, evidence=make_evidence(tmp_path))
    err = v.dimensions["divides"].error
    assert err.type == "ZeroDivisionError" and err.traceback.startswith("Traceback (most recent call last)")
    assert "in _share_of" in err.traceback and "in divides" in err.traceback  # where it failed, and who called it
    assert err.traceback.rstrip().endswith("ZeroDivisionError: division by zero")
    stored = Verdict.model_validate_json(v.model_dump_json())  # what session.json keeps
    assert stored.dimensions["divides"].error.traceback == err.traceback
    (line,) = [r for r in caplog.records if "divides" in r.getMessage()]
    assert line.levelno == logging.ERROR and line.exc_info and line.exc_info[0] is ZeroDivisionError


def test_a_traceback_is_capped_to_its_innermost_frames_and_characters():
    def deep(n):
        return deep(n - 1) if n else 1 / 0
    try:
        deep(200)
    except ZeroDivisionError as e:
        err = ErrorInfo.of(e)
    assert len(err.traceback) <= TRACE_CHARS
    assert err.traceback.count("in deep") <= TRACE_FRAMES
    assert err.traceback.rstrip().endswith("ZeroDivisionError: division by zero")  # the end is kept
    assert ErrorInfo.of(ValueError("never raised")).traceback is None


def test_judge_dimensions_join_the_verdict_and_a_crashing_judge_is_error(tmp_path, cfg):
    def judge(ws, prompt, reqs, ev):
        return [DimensionResult(name="code_quality", status="partial", data={"score": 3})]

    v = grade(tmp_path, [OK], cfg, evidence=make_evidence(tmp_path), judge=judge)
    assert v.status("code_quality") == "partial" and v.overall == "partial"

    def broken(ws, prompt, reqs, ev):
        raise RuntimeError("judge offline")
    v = grade(tmp_path, [OK], cfg, evidence=make_evidence(tmp_path), judge=broken)
    assert v.status("requirements") == "error" and v.functional


def test_compose_fails_on_any_high_finding_even_if_dimensions_pass():
    d = DimensionResult(name="x", status="pass", findings=[Finding(severity="high", dimension="x", message="m")])
    assert compose({"x": d}).overall == "fail"


def _recorder(calls: list[str], name: str):
    def dimension(ctx):
        calls.append(name)
        return DimensionResult(name=name, status="pass", summary="recorded")
    return dimension


def test_a_grading_computes_only_the_dimensions_it_asks_for_each_once(tmp_path, cfg, monkeypatch):
    calls: list[str] = []
    monkeypatch.setitem(DIMENSIONS, "recorded", _recorder(calls, "recorded"))
    counter = Check(name="count", kind="command_succeeds", run="echo run >> runs.txt")
    v = grade(tmp_path, [counter], cfg, evidence=make_evidence(tmp_path), dimensions=CHECKS)
    assert list(v.dimensions) == ["checks"] and calls == []
    v = grade(tmp_path, [counter], cfg, dimensions=("recorded", "checks"))
    assert list(v.dimensions) == ["checks", "recorded"] and calls == ["recorded"]  # the table's order
    v = grade(tmp_path, [counter], cfg, evidence=make_evidence(tmp_path))  # every dimension: the job's grading
    assert list(v.dimensions) == ["checks", "cluster", "diagnostics", "swarm", "recorded"]
    assert calls == ["recorded", "recorded"]
    assert (tmp_path / "runs.txt").read_text() == "run\n" * 3  # the checks ran once per grading


def test_the_workspace_dimensions_leave_out_what_only_swarm_evidence_shows(tmp_path, cfg):
    v = grade(tmp_path, [OK], cfg, dimensions=WORKSPACE)
    assert list(v.dimensions) == ["checks", "diagnostics"] and v.overall == "pass" and v.functional


def test_an_unknown_dimension_is_a_one_line_error_naming_the_known_ones(tmp_path, cfg):
    with pytest.raises(UsageError, match=r"^unknown grading dimension\(s\) vibes; known: checks, cluster, "):
        grade(tmp_path, [OK], cfg, dimensions=("checks", "vibes"))


def test_a_check_that_cannot_run_is_an_error_dimension_or_with_strict_raised(tmp_path, cfg):
    table = Check(name="golden", kind="differential", table="missing.json", module="app")
    table._root = tmp_path
    v = grade(tmp_path, [OK, table], cfg, dimensions=CHECKS)
    assert v.status("checks") == "error" and "cannot read golden table" in v.dimensions["checks"].summary
    assert v.check_results() == [] and not v.functional
    with pytest.raises(SuiteError, match="missing.json: cannot read golden table"):
        grade(tmp_path, [OK, table], cfg, dimensions=CHECKS, strict=True)


def test_check_results_come_back_typed_from_the_verdict(tmp_path, cfg):
    v = grade(tmp_path, [OK, BAD], cfg, dimensions=CHECKS)
    assert [(r.name, r.passed, r.exit_code) for r in v.check_results()] == [("ok", True, 0), ("bad", False, 1)]
    assert grade(tmp_path, [OK], cfg, dimensions=("diagnostics",)).check_results() == []
