"""One mutant against its spec's checks: the checks that can kill it first, the rest only when needed.

``suite verify`` decides, for every mutant, whether a check covering a requirement it breaks fails it
and whether its failure label's promise holds; and, for every check, whether some mutant fails it.
Neither needs every check run on every mutant — with nine specs and ~450 mutants that would take
most of an hour on two cores.  So a mutant runs, in this order, until its verdict is decided:

1. its own tests (``tests_pass``) when it is a liar, whose promise is that they pass — first, on the
   workspace as the mutant left it (a check that runs the app may leave files its tests trip on);
2. the checks covering what it breaks, a golden table first on just the rows that trace those
   requirements (a failing row there fails the whole table; if they all pass, the whole table runs);
3. the remaining checks, only while it is not yet killed by a covering check or, for a crash, no
   check has shown its traceback yet.

What it did not need is listed as ``skipped``.  :func:`swarmgym.grading.suite_verify.verify_suite` then runs,
for any check that no mutant failed, that check on the mutants that skipped it, until one fails — so
"no mutant fails check X" is still only reported when every mutant passed X.  ``--exhaustive`` runs
every check on every mutant.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from swarmgym.config import Config
from swarmgym.grading.grade import CHECKS, grade
from swarmgym.models import CheckResult
from swarmgym.suitekit.mutants import Mutant
from swarmgym.suitekit.suite import TABLE_KINDS, Check

OWN_TESTS = "tests_pass"  # the check that runs the app's own test suite


def shows_traceback(result: CheckResult) -> bool:
    """Whether a check's output shows a Python traceback (a crash mutant's promise)."""
    return "Traceback" in result.stdout_tail + result.stderr_tail or "traceback" in result.detail


def _order(mutant: Mutant, checks: list[Check]) -> list[Check]:
    broken = set(mutant.breaks)
    covering = [c for c in checks if broken & set(c.covers or [])]
    own = [c for c in checks if c.name == OWN_TESTS and mutant.failure == "liar"]
    covering = [c for c in covering if c not in own]
    return own + covering + [c for c in checks if c not in covering and c not in own]


def decided(mutant: Mutant, checks: list[Check], results: list[CheckResult]) -> bool:
    """Whether running more checks could not change the mutant's verdict."""
    broken = set(mutant.breaks)
    covering = {c.name for c in checks if broken & set(c.covers or [])}
    if not any(not r.passed and r.name in covering for r in results):
        return False
    ran = {r.name for r in results}
    if mutant.failure == "liar" and any(c.name == OWN_TESTS for c in checks) and OWN_TESTS not in ran:
        return False
    return not (mutant.failure == "crash" and not any(shows_traceback(r) for r in results))


def run_one(check: Check, ws: Path, cfg: Config, row_filter: Callable[[dict[str, Any]], bool] | None = None) -> CheckResult:
    """``check`` graded alone on ``ws`` (only the rows ``row_filter`` keeps of a row-based check); a failing
    golden table names its first failing row only: verify needs to know whether a check fails, not every row."""
    [res] = grade(ws, [check], cfg, dimensions=CHECKS, row_filter=row_filter, strict=True,
                  first_failure=True).check_results()
    return res


def run_focused(mutant: Mutant, checks: list[Check], ws: Path, cfg: Config) -> tuple[list[CheckResult], list[str]]:
    """(results in the order run, names of the checks skipped) for ``mutant`` materialized in ``ws``."""
    broken = set(mutant.breaks)
    results: list[CheckResult] = []
    for check in _order(mutant, checks):
        if decided(mutant, checks, results):
            break
        if check.kind in TABLE_KINDS and broken & set(check.covers or []):
            first = run_one(check, ws, cfg, row_filter=lambda row: bool(broken & set(row.get("req", []))))
            if not first.passed and "golden rows differ" in first.detail:
                first.detail += f" (among the rows tracing {', '.join(sorted(broken))})"
                results.append(first)
                continue
        results.append(run_one(check, ws, cfg))
    ran = {r.name for r in results}
    return results, [c.name for c in checks if c.name not in ran]
