"""swarm: synthesized from the run itself (exit code, report, failed/salvaged tasks)."""
from __future__ import annotations

from typing import Any

from swarmgym.grading.context import GradingContext
from swarmgym.models import DimensionResult, Finding


def swarm_dimension(ctx: GradingContext) -> DimensionResult:
    run = ctx.evidence.run if ctx.evidence else None
    if run is None:
        return DimensionResult(name="swarm", status="n/a", summary="no swarm run recorded")
    rep = run.report
    data: dict[str, Any] = {"exit_code": run.exit_code, "timed_out": run.timed_out, "wall_secs": run.wall_secs,
            "report_source": run.report_source}
    if run.limits_hit:
        data["limits_hit"] = list(run.limits_hit)
        return DimensionResult(name="swarm", status="fail", summary=run.limits_hit[0], data=data,
                               findings=[Finding(severity="high", dimension="swarm", message=hit,
                                                 hint="the box's caps protect the host (sandbox.swarm_ram_mb, "
                                                      "sandbox.workspace_mb): raise them only for a trusted swarm")
                                         for hit in run.limits_hit])
    if run.timed_out:
        return DimensionResult(name="swarm", status="fail", summary=f"timed out after {run.wall_secs:.0f}s (exit 124)",
                               data=data, findings=[Finding(severity="high", dimension="swarm",
                                                            message="the swarm run hit its timeout and was killed",
                                                            hint="raise swarm.timeout or look for a hung task in the event log")])
    if rep is None:
        return DimensionResult(name="swarm", status="fail", summary=f"no RunReport (exit {run.exit_code})", data=data,
                               findings=[Finding(severity="high", dimension="swarm",
                                                 message="the swarm printed no RunReport and left no events to rebuild one",
                                                 hint="read the stderr tail; the binary may have crashed at start-up")])
    failed, tolerated = rep.blocking_failures(), rep.tolerated_failures()
    data.update(done=len(rep.done), failed=len(failed), salvaged=len(rep.salvaged), bonus=len(rep.bonus),
                tolerated=tolerated)
    findings = []
    if run.report_source == "events":
        findings.append(Finding(severity="medium", dimension="swarm",
                                message="stdout held no RunReport; tasks were rebuilt from the event log",
                                hint="the swarm printed garbage on stdout: check for stray prints in the run"))
    if failed or (run.exit_code != 0 and not tolerated):
        msg = f"exit {run.exit_code}" + (f", failed tasks: {', '.join(failed)}" if failed else "")
        findings.append(Finding(severity="medium", dimension="swarm", message=f"the swarm reported failure ({msg})",
                                hint="read the failed tasks' attempt history in the RunReport"))
        return DimensionResult(name="swarm", status="fail", summary=msg, data=data, findings=findings)
    if tolerated:  # goose: a bonus or owns-nothing task's failure never fails the run
        findings.append(Finding(severity="low", dimension="swarm",
                                message=f"bonus or owns-nothing task(s) failed: {', '.join(tolerated)}",
                                hint="these are optional or model self-reports; the golden checks decide"))
        return DimensionResult(name="swarm", status="partial", data=data, findings=findings,
                               summary=f"exit {run.exit_code}; {len(tolerated)} optional task(s) failed")
    if rep.salvaged:
        return DimensionResult(name="swarm", status="partial", data=data, findings=findings,
                               summary=f"exit 0; {len(rep.salvaged)} salvaged task(s)")
    return DimensionResult(name="swarm", status="partial" if findings else "pass", data=data, findings=findings,
                           summary=f"exit 0; {len(rep.done)} task(s) done")
