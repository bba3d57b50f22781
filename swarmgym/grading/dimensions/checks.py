"""checks: the deterministic golden checks, run against the built app (the floor)."""
from __future__ import annotations

from swarmgym.grading.checks import run_checks
from swarmgym.grading.context import VerifyContext
from swarmgym.models import DimensionResult, Finding


def checks_dimension(ctx: VerifyContext) -> DimensionResult:
    results = run_checks(ctx.checks, ctx.workspace, ctx.cfg, ctx.evidence, timeout=ctx.check_timeout)
    ctx.check_results = results
    failed = [r for r in results if not r.passed]
    findings = [Finding(severity="high", dimension="checks",
                        message=f"golden check {r.name!r} failed ({r.detail})",
                        hint="the app does not do the golden thing; read the check's output tail in report.html")
                for r in failed]
    if not results:
        return DimensionResult(name="checks", status="n/a", summary="no checks")
    return DimensionResult(
        name="checks", status="fail" if failed else "pass",
        summary=f"{len(results) - len(failed)}/{len(results)} checks passed"
                + (f"; failed: {', '.join(r.name for r in failed)}" if failed else ""),
        findings=findings, data={"results": [r.model_dump() for r in results]})
