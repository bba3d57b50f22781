"""Compose dimension results into the overall verdict (docs/architecture.md section 6).

error   if the checks dimension is ``error`` (a golden check could not be run): there is no outcome to
        count, so the run stays out of pass rates like one that could not run;
fail    if any high-severity finding or any dimension fails;
partial if any dimension is partial or errored, or any medium finding (a warning) stands;
pass    otherwise.  ``functional`` is true only when the checks dimension passed.
"""
from __future__ import annotations

from swarmgym.models import DimensionResult, Overall, Verdict


def compose(dims: dict[str, DimensionResult]) -> Verdict:
    findings = [f for d in dims.values() for f in d.findings]
    statuses = [d.status for d in dims.values()]
    overall: Overall
    checks = dims.get("checks")
    if checks is not None and checks.status == "error":
        overall = "error"
    elif "fail" in statuses or any(f.severity == "high" for f in findings):
        overall = "fail"
    elif "partial" in statuses or "error" in statuses or any(f.severity == "medium" for f in findings):
        overall = "partial"
    else:
        overall = "pass"
    return Verdict(overall=overall, functional=bool(checks and checks.status == "pass"),
                   dimensions=dims, findings=findings)
