"""Why a run failed: each failure class from hand-made evidence of that class (docs/compare.md)."""
from __future__ import annotations

import pytest

from swarmgym.ledger import record_from_result
from swarmgym.models import CheckResult, DimensionResult, JobResult, JobSpec, Verdict, classify

COVERS = {"totals": ["R-total", "R-sum"], "add-item": ["R-add"], "help": []}
TRACE = 'Traceback (most recent call last):\n  File "app.py", line 3\nKeyError: \'x\''


def verdict(*, functional=False, overall="fail", swarm="pass", exit_code=0, failed=("totals",), stderr="",
            narration=(), blockers=(), starved=(), timed_out=False, findings=()) -> Verdict:
    checks = [CheckResult(name=n, kind="command_succeeds", passed=n not in failed, stderr_tail=stderr if n in failed else "")
              for n in COVERS]
    shares = [{"device": d, "state": "starved", "dispatched": 0} for d in starved] + [
        {"device": "mlx-studio", "state": "ok", "dispatched": 3}]
    return Verdict(overall=overall, functional=functional, findings=list(findings), dimensions={
        "swarm": DimensionResult(name="swarm", status=swarm, summary=f"exit {exit_code}",
                                 data={"exit_code": exit_code, "timed_out": timed_out, "wall_secs": 31.0}),
        "checks": DimensionResult(name="checks", status="pass" if functional else "fail",
                                  data={"results": [c.model_dump() for c in checks]}),
        "diagnostics": DimensionResult(name="diagnostics", status="fail" if narration or blockers else "pass",
                                       data={"narration": list(narration), "blockers": list(blockers)}),
        "cluster": DimensionResult(name="cluster", status="fail" if starved else "pass", data={"shares": shares}),
    })


STUB = {"file": "inv/db.py", "line": 12, "what": "reached stub", "text": "add_item raises NotImplementedError"}
CASES = {
    "liar": ("done", verdict(), "claimed success"),
    "narrator": ("done", verdict(narration=["t3"], stderr=TRACE), "t3 reported done with zero tool calls"),
    "stub": ("done", verdict(blockers=[STUB], narration=["t3"], stderr=TRACE), "reached stub at inv/db.py:12"),
    "crash": ("done", verdict(stderr=TRACE), "ran into a traceback"),
    "hang": ("timeout", verdict(swarm="fail", exit_code=124, timed_out=True), "killed at its timeout"),
    "starved": ("done", verdict(functional=True, failed=(), starved=["mlx-mini"]), "mlx-mini got no task"),
    "infra": ("infra", None, "PreflightError: no binary"),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_each_failure_class_is_read_from_its_own_evidence(kind):
    status, v, why = CASES[kind]
    f = classify(status, v, COVERS, error="PreflightError: no binary")
    assert f.kind == kind and why in f.reason


def test_failing_checks_name_the_requirements_they_cover_and_starved_devices_are_kept_whatever_the_class():
    f = classify("done", verdict(failed=("totals", "add-item", "help"), starved=["mini-aux"]), COVERS)
    assert f.kind == "liar" and f.checks == ["totals", "add-item", "help"]
    assert f.requirements == ["R-add", "R-sum", "R-total"] and f.starved == ["mini-aux"]


def test_a_swarm_that_reported_failure_without_a_traceback_crashed_and_a_passing_run_is_ok():
    assert classify("done", verdict(swarm="fail", exit_code=1), COVERS).kind == "crash"
    ok = classify("done", verdict(functional=True, overall="pass", failed=()), COVERS)
    assert ok.kind == "ok" and not ok.checks and not ok.requirements


def test_the_ledger_record_carries_the_class_the_host_decided_or_classifies_a_result_without_one():
    job = JobSpec(job_id="c-000", campaign_id="c", suite="bench-v2", suite_hash="h", spec="crud", app_slug="invtrack",
                  variant="gguf", tier="light", rep=0)
    hosted = classify("done", verdict(), COVERS)
    rec = record_from_result(JobResult(job=job, session_id="s", host="h", verdict=verdict(), failure=hosted))
    assert rec.failure == hosted and rec.failure.requirements == ["R-sum", "R-total"]
    lost = record_from_result(JobResult(job=job, session_id="s2", host="h", status="error"))
    assert lost.overall == "error" and lost.failure is not None and lost.failure.kind == "infra"


def test_not_implemented_left_on_a_path_no_check_reached_is_a_stub_and_a_golden_row_traceback_a_crash():
    smell = {"file": "inv/cli.py", "line": 74, "what": "NotImplementedError", "text": "run raises NotImplementedError"}
    v = verdict()
    v.dimensions["diagnostics"].data["smells"] = [smell]
    assert classify("done", v, COVERS).kind == "stub"
    rows = verdict()
    rows.dimensions["checks"].data["results"][0]["detail"] = "3/44 golden rows differ: printed a Python traceback"
    assert classify("done", rows, COVERS).kind == "crash"


def test_a_regraded_run_keeps_the_class_its_swarm_evidence_decided_and_names_the_new_suites_requirements():
    from swarmgym.models import Failure, regraded

    narr = Failure(kind="narrator", reason="t3 narrated", checks=["old"], starved=["mini"])
    assert regraded(narr, "pass", ["totals"], COVERS).kind == "narrator"
    assert regraded(narr, "pass", ["totals"], COVERS).requirements == ["R-sum", "R-total"]
    assert regraded(Failure(kind="ok"), "pass", ["add-item"], COVERS).kind == "liar"
    assert regraded(None, "fail", ["add-item"], COVERS).kind == "crash"
    assert regraded(narr, "pass", [], COVERS).kind == "ok"


def test_a_run_whose_golden_checks_could_not_be_run_is_infra_even_when_the_swarm_looks_like_a_liar():
    v = verdict()
    v.dimensions["checks"] = DimensionResult(name="checks", status="error",
                                             summary="1/3 checks passed; could not run (infra): totals, help")
    f = classify("done", v, COVERS)
    assert f.kind == "infra" and f.reason == "golden checks could not be run: 1/3 checks passed; could not run (infra): totals, help"
    assert classify("done", verdict(), COVERS).kind == "liar"  # the same evidence with checks that ran
