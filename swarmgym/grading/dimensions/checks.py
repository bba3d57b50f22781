"""checks: the deterministic golden checks, run against the built app (the floor).

Each check runs through its kind (:data:`swarmgym.grading.kinds.KINDS`), in the order the spec lists them,
all in the grading's one check box.
"""
from __future__ import annotations

import time

from swarmgym.core.errors import CheckInfraError
from swarmgym.grading.context import GradingContext
from swarmgym.grading.kinds import CheckKind, get_kind
from swarmgym.models import CheckResult, DimensionResult, Finding
from swarmgym.suitekit.suite import Check


def _timed(check: Check, kind: CheckKind, ctx: GradingContext) -> CheckResult:
    start = time.monotonic()
    res = kind.run(check, ctx)
    res.duration_s = round(time.monotonic() - start, 3)
    return res


def checks_dimension(ctx: GradingContext) -> DimensionResult:
    """Every check through its kind.  A check that could not be run (its result carries ``error``) makes
    the dimension ``error`` — an infrastructure failure, not the app's — or, for a ``strict`` grading,
    raises :class:`CheckInfraError`."""
    kinds = [(c, get_kind(c.kind)) for c in ctx.checks]  # an unknown kind: SuiteError before any check runs
    results = [_timed(c, kind, ctx) for c, kind in kinds]
    ctx.check_results = results
    infra = [r for r in results if r.error is not None]
    if infra and ctx.strict:
        raise CheckInfraError(f"check {infra[0].name!r} could not be run: {infra[0].detail}")
    failed = [r for r in results if not r.passed and r.error is None]
    findings = [Finding(severity="high", dimension="checks",
                        message=f"golden check {r.name!r} failed ({r.detail})",
                        hint="the app does not do the golden thing; read the check's output tail in report.html")
                for r in failed]
    findings += [Finding(severity="low", dimension="checks", message=f"golden check {r.name!r} could not be run ({r.detail})",
                         hint="an infrastructure error on the grading host, not the app's failure; grade it again")
                 for r in infra]
    if not results:
        return DimensionResult(name="checks", status="n/a", summary="no checks")
    summary = (f"{len(results) - len(failed) - len(infra)}/{len(results)} checks passed"
               + (f"; failed: {', '.join(r.name for r in failed)}" if failed else "")
               + (f"; could not run (infra): {', '.join(r.name for r in infra)}" if infra else ""))
    return DimensionResult(
        name="checks", status="error" if infra else "fail" if failed else "pass", summary=summary,
        findings=findings, data={"results": [r.model_dump() for r in results]})
