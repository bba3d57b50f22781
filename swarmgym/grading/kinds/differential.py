"""``differential`` and ``rows``: a frozen table of inputs and golden outputs (:mod:`swarmgym.grading.difftable`).

The box gets each row's inputs only; the golden values are compared here, outside it — leniently for
``differential`` (bench-v2/v3: :mod:`swarmgym.grading.difftable_compare`), exactly and by type for ``rows``
(bench-v4: :mod:`swarmgym.grading.rowmatch`).  ``ctx.row_filter`` keeps only some rows (``suite verify``'s
focused run).
"""
from __future__ import annotations

import json

from swarmgym.grading import difftable, difftable_compare, rowmatch
from swarmgym.grading.context import GradingContext
from swarmgym.grading.kinds.command import boxed
from swarmgym.models import CheckResult
from swarmgym.suitekit.suite import Check


class Differential:
    name = "differential"
    problem: difftable.RowProblem = staticmethod(difftable_compare.row_problem)

    def run(self, check: Check, ctx: GradingContext) -> CheckResult:
        limit = ctx.timeout_for(check)
        table = difftable.load_table(check.table_file(), str(check.module))
        if ctx.row_filter is not None:
            table["rows"] = [r for r in table["rows"] if ctx.row_filter(r)]
        graded = difftable.grade(table, lambda cmd: ctx.box(cmd, timeout=limit, output_cap=difftable.RESULT_CAP),
                                 timeout=limit, whole_box=ctx.backend == "bwrap", problem=self.problem,
                                 step_timeout=ctx.cfg.checks.step_timeout,
                                 confirm_timeout=ctx.cfg.checks.confirm_timeout, first_failure=ctx.first_failure)
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
