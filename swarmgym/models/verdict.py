"""The grading of one run: golden check results, dimensions, findings and the :class:`Verdict`."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from swarmgym.models.base import Model
from swarmgym.models.error import ErrorInfo

Status = Literal["pass", "partial", "fail", "error", "n/a"]
Overall = Literal["pass", "partial", "fail", "error"]
Severity = Literal["high", "medium", "low", "info"]


class Finding(Model):
    severity: Severity
    """``high`` sinks the verdict to fail, ``medium`` to partial; ``low`` and ``info`` only inform."""
    dimension: str
    """The dimension that found it (checks, swarm, cluster, diagnostics, …)."""
    message: str
    """What was found."""
    hint: str = ""
    """How to fix it."""


class CheckResult(Model):
    name: str
    """The golden check's name (from suite.yaml)."""
    kind: str
    """The check's kind (a name in ``swarmgym.grading.kinds.KINDS``: command_succeeds, file_exists, …)."""
    passed: bool
    """Whether the check passed."""
    exit_code: int | None = None
    """The command's exit status (command_succeeds only)."""
    duration_s: float = 0.0
    """Wall seconds the check took."""
    timed_out: bool = False
    """Killed at the check timeout."""
    stdout_tail: str = ""
    """The last bytes of stdout (``checks.output_cap``)."""
    stderr_tail: str = ""
    """The last bytes of stderr."""
    detail: str = ""
    """One line on why it passed or failed."""
    error: ErrorInfo | None = None
    """Set when the check itself could not be run (its box did not start, its harness crashed): an
    infrastructure error, never the app's failure (``passed`` is false; the checks dimension is ``error``)."""


class DimensionResult(Model):
    name: str
    """swarm | checks | cluster | diagnostics | requirements | code_quality | bugs."""
    status: Status
    """pass | partial | fail | error (the dimension crashed) | n/a (not graded)."""
    summary: str = ""
    """One line for reports."""
    findings: list[Finding] = Field(default_factory=list)
    """What this dimension found."""
    data: dict[str, Any] = Field(default_factory=dict)
    """Dimension-specific detail (check results, per-device rows, …)."""
    error: ErrorInfo | None = None
    """Why the dimension crashed, if it did."""


class Verdict(Model):
    overall: Overall
    """error if a golden check could not be run (the checks dimension is error: no outcome); fail if any dimension
    fails or any finding is high; partial if anything is partial, errored or medium; else pass."""
    functional: bool
    """True only when every golden check passed."""
    dimensions: dict[str, DimensionResult] = Field(default_factory=dict)
    """Each graded dimension by name."""
    findings: list[Finding] = Field(default_factory=list)
    """All dimensions' findings together."""

    def status(self, dim: str) -> str:
        d = self.dimensions.get(dim)
        return d.status if d else "n/a"

    def check_results(self) -> list[CheckResult]:
        """The golden checks' results, in the order they ran ([] when the checks dimension was not graded)."""
        d = self.dimensions.get("checks")
        return [CheckResult.model_validate(r) for r in (d.data.get("results", []) if d else [])]
