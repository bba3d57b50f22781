"""Hand-built session documents and ledger slugs for the report tests (the job pipeline is not used)."""
from __future__ import annotations

from swarmgym.models import (
    CheckResult,
    DimensionResult,
    Finding,
    PoolDevice,
    RunOutcome,
    RunReport,
    SessionDoc,
    Turn,
    Verdict,
)


def make_doc(*, stdout_tail: str = "<b>total: 24</b> & \"more\"", tweak: bool = True,
             prompt: str = "Build invtrack: an inventory CLI.") -> SessionDoc:
    checks = [
        CheckResult(name="value-report", kind="command_succeeds", passed=False, exit_code=1, duration_s=0.41,
                    stdout_tail=stdout_tail, stderr_tail="Traceback: <module> boom", detail="grep found no 25"),
        CheckResult(name="entry-exists", kind="file_exists", passed=True, detail="invtrack/__main__.py"),
    ]
    findings = [
        Finding(severity="low", dimension="diagnostics", message="TODO left in invtrack/db.py", hint="finish or delete it"),
        Finding(severity="high", dimension="checks", message="golden check value-report failed",
                hint="the value report must print 25 for the sample items"),
        Finding(severity="medium", dimension="cluster", message="device gpu-b is idle (0.0 of fair 3.0)",
                hint="raise its pool weight: goose swarm pool weight gpu-b 2"),
    ]
    verdict = Verdict(overall="fail", functional=False, findings=findings, dimensions={
        "swarm": DimensionResult(name="swarm", status="pass", summary="exit 0"),
        "checks": DimensionResult(name="checks", status="fail", summary="1/2 checks passed",
                                  data={"results": [c.model_dump() for c in checks]}),
        "cluster": DimensionResult(name="cluster", status="partial", summary="1 idle device"),
        "diagnostics": DimensionResult(name="diagnostics", status="partial"),
        "requirements": DimensionResult(name="requirements", status="n/a"),
    })
    turn = Turn(
        n=1, kind="bench", prompt=prompt, verdict=verdict, wall_secs=42.5,
        run=RunOutcome(adapter="sim", exit_code=0, report=RunReport(dispatched_per_device={"gpu-a": 6, "gpu-b": 0}),
                       report_source="stdout"),
        per_device={"gpu-a": 5, "gpu-b": 1, "m2-mini": 0},
        pool=[PoolDevice(id="gpu-a", weight=2), PoolDevice(id="gpu-b", weight=1), PoolDevice(id="m2-mini", weight=1)],
        diagnostics_by_model={"qwen-27b": {"narration": 1, "todo": 2}, "glm-9b": {"not_implemented": 1}},
        tweak={"proposal": "pool.gpu-b.weight=2", "applied": ["pool.gpu-b.weight=2"], "rejected": [],
               "before": {"gpu-a": 5, "gpu-b": 1, "m2-mini": 0}, "after": {"gpu-a": 3, "gpu-b": 2, "m2-mini": 1}}
        if tweak else None,
    )
    return SessionDoc(session_id="sess-0001", job_id="c1:0001", campaign_id="c1", spec="crud", app_slug="invtrack",
                      variant="mlx", tier="smoke", suite="bench-v1", suite_hash="abc123", host="mac-1",
                      turns=[turn], overall="fail", functional=False, started=1.7e9, finished=1.7e9 + 43)


SLUGS = {"crud": "invtrack", "compute": "rdcalc", "txn": "txkvbench"}
