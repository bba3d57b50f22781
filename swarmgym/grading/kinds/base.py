"""The protocol every check kind follows, and the one way a kind writes its :class:`CheckResult`."""
from __future__ import annotations

from typing import Any, Protocol

from swarmgym.grading.context import GradingContext
from swarmgym.models import CheckResult
from swarmgym.suitekit.suite import Check


class CheckKind(Protocol):
    """One kind of golden check (``kind:`` in suite.yaml), like an inspect_ai scorer.

    ``run`` grades the workspace of ``ctx`` against ``check`` and never raises for the app's faults (a
    crash, a hang, a wrong answer are a failed result); it raises only when the check itself cannot be
    run (a missing golden table: SuiteError; no isolation backend: IsolationError).  Anything that runs
    the workspace's code runs through ``ctx.box`` (the grading's one box); the expected value stays here,
    outside it.  ``duration_s`` is filled in by the caller.
    """

    name: str

    def run(self, check: Check, ctx: GradingContext) -> CheckResult: ...


def result(check: Check, passed: bool, detail: str, **fields: Any) -> CheckResult:
    """``check``'s result: passed or not, one line on why, and any other :class:`CheckResult` field."""
    return CheckResult(name=check.name, kind=check.kind, passed=passed, detail=detail, **fields)
