"""Golden-check results through :func:`swarmgym.grading.grade.grade`, as the suite kit and regrade read them."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from swarmgym.config import Config
from swarmgym.grading.grade import CHECKS, grade
from swarmgym.models import CheckResult, Evidence
from swarmgym.suitekit.suite import Check


def check_results(checks: list[Check], ws: Path, cfg: Config, evidence: Evidence | None = None,
                  **kw: Any) -> list[CheckResult]:
    """Every check's result on ``ws``, in order (the checks dimension alone; a check that cannot run raises)."""
    return grade(ws, checks, cfg, dimensions=CHECKS, evidence=evidence, strict=True, **kw).check_results()


def check_result(check: Check, ws: Path, cfg: Config, evidence: Evidence | None = None, **kw: Any) -> CheckResult:
    """One check's result on ``ws``."""
    [res] = check_results([check], ws, cfg, evidence, **kw)
    return res
