"""The verify stack: seven dimensions from four sources, composed into one verdict.

Dimensions are small functions, one module each, listed by name in :data:`DIMENSIONS`; each gets a
:class:`VerifyContext` and returns a :class:`DimensionResult`.  A dimension that raises is
recorded as ``error`` and never sinks the verdict.  The judge dimensions come from an
optional ``judge`` callable (exploratory mode); benchmark mode runs without one.
"""
from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import Callable, Mapping, Protocol

from swarmgym.config import Config
from swarmgym.grading.context import VerifyContext
from swarmgym.grading.dimensions.checks import checks_dimension
from swarmgym.grading.dimensions.cluster import cluster_dimension
from swarmgym.grading.dimensions.diagnostics import diagnostics_dimension
from swarmgym.grading.dimensions.swarm import swarm_dimension
from swarmgym.grading.verdict import compose
from swarmgym.models import DimensionResult, ErrorInfo, Evidence, Finding, HostSample, Verdict
from swarmgym.suitekit.suite import Check

__all__ = ["verify", "compose", "errored", "Judge", "Dimension", "DIMENSIONS"]

log = logging.getLogger(__name__)
Dimension = Callable[[VerifyContext], DimensionResult]
#: The dimensions every verify computes, in this order (the order of reports): diagnostics reads the
#: checks' results, so checks come first.
DIMENSIONS: Mapping[str, Dimension] = {
    "checks": checks_dimension,
    "cluster": cluster_dimension,
    "diagnostics": diagnostics_dimension,
    "swarm": swarm_dimension,
}


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


def _guarded(name: str, fn: Callable[[], DimensionResult]) -> DimensionResult:
    try:
        return fn()
    except Exception as e:  # a crashing dimension is data, not a crash
        log.exception("verify: dimension %s crashed", name)
        return errored(name, e)


def verify(evidence: Evidence | None, workspace: str | Path, checks: list[Check], cfg: Config, *,
           judge: Judge | None = None, samples: list[HostSample] | None = None, prompt: str = "",
           requirements: list[str] | None = None, check_timeout: float | None = None,
           dimensions: Mapping[str, Dimension] = DIMENSIONS) -> Verdict:
    """Grade ``workspace`` on every dimension of ``dimensions`` (plus the judge's). Never raises."""
    ctx = VerifyContext(evidence=evidence, workspace=Path(workspace), checks=list(checks), cfg=cfg,
                        samples=list(samples or (evidence.host_samples if evidence else [])),
                        check_timeout=check_timeout)
    dims = {name: _guarded(name, functools.partial(fn, ctx)) for name, fn in dimensions.items()}
    if judge is not None:
        try:
            for d in judge(ctx.workspace, prompt, list(requirements or []), evidence):
                dims[d.name] = d
        except Exception as e:
            log.exception("verify: the judge crashed")
            for name in ("requirements", "code_quality", "bugs"):
                dims[name] = errored(name, e)
    return compose(dims)
