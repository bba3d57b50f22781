"""``differential`` and ``rows``: a frozen table of inputs and golden outputs (:mod:`swarmgym.grading.difftable`).

The box gets each row's inputs only; the golden values are compared here, outside it — leniently for
``differential`` (bench-v2/v3: :mod:`swarmgym.grading.difftable_compare`), exactly and by type for ``rows``
(bench-v4: :mod:`swarmgym.grading.rowmatch`).  ``ctx.row_filter`` keeps only some rows (``suite verify``'s
focused run).  The table checks of one app share one box for their fast paths (:func:`fast_paths`); each
confirms its own disagreements.
"""
from __future__ import annotations

import json
from typing import Any

from swarmgym.grading import difftable, difftable_compare, rowmatch
from swarmgym.grading.context import GradingContext
from swarmgym.grading.kinds.command import boxed
from swarmgym.isolation.sandbox import SandboxResult
from swarmgym.models import CheckResult
from swarmgym.suitekit.suite import TABLE_KINDS, Check


def table_of(check: Check, ctx: GradingContext) -> dict[str, Any]:
    """``check``'s table, with only the rows ``ctx.row_filter`` keeps."""
    table = difftable.load_table(check.table_file(), str(check.module))
    if ctx.row_filter is not None:
        table["rows"] = [r for r in table["rows"] if ctx.row_filter(r)]
    return table


def fast_paths(ctx: GradingContext) -> dict[str, tuple[dict[str, Any], difftable.FastPath | None]]:
    """Each table check's table and fast path, by check name: the table checks of one app module run their
    fast paths in one box (:func:`difftable.together`); worked out once per grading, when its first table
    check runs.  A module with one table check has no fast path here (that check runs its own, as always)."""
    if ctx.fast_paths is None:
        tables = {c.name: (c, table_of(c, ctx)) for c in ctx.checks if c.kind in TABLE_KINDS}
        ctx.fast_paths = {name: (t, None) for name, (_, t) in tables.items()}
        by_module: dict[str, list[tuple[Check, dict[str, Any]]]] = {}
        for c, t in tables.values():
            if t["rows"]:
                by_module.setdefault(t["module"], []).append((c, t))
        for group in (g for g in by_module.values() if len(g) > 1):
            limit = sum(ctx.timeout_for(c) for c, _ in group)

            def run_box(cmd: str, limit: float = limit) -> SandboxResult:
                return ctx.box(cmd, timeout=limit, output_cap=difftable.RESULT_CAP)

            runs = difftable.together([t for _, t in group], run_box, timeout=limit, whole_box=ctx.backend == "bwrap",
                                      step_timeout=ctx.cfg.checks.step_timeout)
            ctx.fast_paths.update({c.name: (t, run) for (c, t), run in zip(group, runs)})
    return ctx.fast_paths


class Differential:
    name = "differential"
    problem: difftable.RowProblem = staticmethod(difftable_compare.row_problem)

    def run(self, check: Check, ctx: GradingContext) -> CheckResult:
        limit = ctx.timeout_for(check)
        table, fast = fast_paths(ctx).get(check.name) or (table_of(check, ctx), None)
        graded = difftable.grade(table, lambda cmd: ctx.box(cmd, timeout=limit, output_cap=difftable.RESULT_CAP),
                                 timeout=limit, whole_box=ctx.backend == "bwrap", problem=self.problem,
                                 step_timeout=ctx.cfg.checks.step_timeout,
                                 confirm_timeout=ctx.cfg.checks.confirm_timeout, first_failure=ctx.first_failure,
                                 fast=fast)
        res, summary = graded.box, graded.summary
        passed, detail = difftable.summarize(summary, res.exit_code)
        res.stdout_tail = json.dumps(summary)[-ctx.cfg.checks.output_cap:] if summary else ""
        # the cap hit a row, which its confirmation ran again: said only when the table failed
        if (breach := res.breach()) and not passed:
            detail = f"{detail}; {breach}"
        return boxed(check, res, passed, detail)


class Rows(Differential):
    """Rows decided outside the box on exact output: whole stdout, a JSON document, *the* value, error rows
    with nothing on stdout and one ``error:`` line (:mod:`swarmgym.grading.rowmatch`)."""

    name = "rows"
    problem: difftable.RowProblem = staticmethod(rowmatch.row_problem)
