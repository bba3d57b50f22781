"""``grade()``: the one way swarmgym grades a workspace — the job, ``verify``, ``regrade`` and the suite kit.

A grading computes the dimensions it is asked for, each once, in the order of :data:`DIMENSIONS` (checks
first: diagnostics reads their results), plus an optional judge's (exploratory mode), and composes them
into one :class:`Verdict`.  Dimensions are small functions, one module each under ``grading/dimensions/``;
each gets the grading's :class:`GradingContext` and returns a :class:`DimensionResult`.  The checks
dimension runs every check through its kind (:data:`swarmgym.grading.kinds.KINDS`), all in one check box
resolved once for the grading.

A dimension that raises is recorded as ``error`` and never sinks the verdict — unless ``strict``: the
suite kit and ``regrade`` read the check results themselves, so a check that cannot run (a missing golden
table, no isolation backend) is their caller's error, raised.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from swarmgym.config import Config
from swarmgym.core.errors import UsageError
from swarmgym.grading.context import GradingContext
from swarmgym.grading.dimensions.checks import checks_dimension
from swarmgym.grading.dimensions.cluster import cluster_dimension
from swarmgym.grading.dimensions.diagnostics import diagnostics_dimension
from swarmgym.grading.dimensions.swarm import swarm_dimension
from swarmgym.grading.verdict import compose
from swarmgym.models import DimensionResult, ErrorInfo, Evidence, Finding, HostSample, Verdict
from swarmgym.suitekit.suite import Check

__all__ = ["grade", "errored", "Judge", "Dimension", "DIMENSIONS", "CHECKS", "WORKSPACE", "JUDGED"]

log = logging.getLogger(__name__)
Dimension = Callable[[GradingContext], DimensionResult]
#: Every dimension a grading can compute, in this order (the order of reports).
DIMENSIONS: dict[str, Dimension] = {
    "checks": checks_dimension,
    "cluster": cluster_dimension,
    "diagnostics": diagnostics_dimension,
    "swarm": swarm_dimension,
}
CHECKS = ("checks",)  # regrade and the suite kit: the golden checks alone
WORKSPACE = ("checks", "diagnostics")  # ``verify PATH`` without swarm evidence: what the workspace shows
JUDGED = ("requirements", "code_quality", "bugs")  # what a judge rules on


class Judge(Protocol):
    def __call__(self, workspace: Path, prompt: str, requirements: list[str],
                 evidence: Evidence | None) -> list[DimensionResult]: ...


def errored(name: str, exc: BaseException) -> DimensionResult:
    """The record of a dimension that crashed: status ``error``, the exception kept as data."""
    return DimensionResult(name=name, status="error", summary=f"dimension crashed: {type(exc).__name__}: {exc}",
                           error=ErrorInfo.of(exc),
                           findings=[Finding(severity="low", dimension=name,
                                             message=f"{name} could not be computed: {exc}",
                                             hint="see the error in session.json; the other dimensions stand")])


def _asked(dimensions: Iterable[str] | None) -> list[str]:
    if dimensions is None:
        return list(DIMENSIONS)
    wanted = set(dimensions)
    if unknown := sorted(wanted - set(DIMENSIONS)):
        raise UsageError(f"unknown grading dimension(s) {', '.join(unknown)}; known: {', '.join(DIMENSIONS)}")
    return [name for name in DIMENSIONS if name in wanted]


def grade(workspace: str | Path, checks: Iterable[Check], cfg: Config, *,
          dimensions: Iterable[str] | None = None, evidence: Evidence | None = None,
          judge: Judge | None = None, prompt: str = "", requirements: list[str] | None = None,
          samples: list[HostSample] | None = None, check_timeout: float | None = None,
          row_filter: Callable[[dict[str, Any]], bool] | None = None, strict: bool = False,
          first_failure: bool = False) -> Verdict:
    """Grade ``workspace`` against ``checks`` on ``dimensions`` (names of :data:`DIMENSIONS`; None: every
    one) and, with a ``judge``, on what it rules.

    ``evidence`` is what the swarm left (``tool_called`` checks and the swarm and cluster dimensions read
    it); ``samples`` the host's load while it ran (default: the evidence's).  ``check_timeout`` is the
    seconds per check that names none; ``row_filter`` keeps only some rows of a row-based check;
    ``first_failure``: only pass or fail matters, so a golden table's detail names its first failing row only.
    Never raises for a crashing dimension unless ``strict``.
    """
    ctx = GradingContext(workspace=Path(workspace), cfg=cfg, checks=list(checks), evidence=evidence,
                         samples=list(samples or (evidence.host_samples if evidence else [])),
                         check_timeout=check_timeout, row_filter=row_filter, strict=strict,
                         first_failure=first_failure)
    dims: dict[str, DimensionResult] = {}
    for name in _asked(dimensions):
        try:
            dims[name] = DIMENSIONS[name](ctx)
        except Exception as e:  # a crashing dimension is data, not a crash
            if strict:
                raise
            log.exception("grade: dimension %s crashed", name)
            dims[name] = errored(name, e)
    if judge is not None:
        try:
            for d in judge(ctx.workspace, prompt, list(requirements or []), evidence):
                dims[d.name] = d
        except Exception as e:
            if strict:
                raise
            log.exception("grade: the judge crashed")
            for name in JUDGED:
                dims[name] = errored(name, e)
    return compose(dims)
