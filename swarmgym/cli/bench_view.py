"""What ``swarmgym bench`` prints: a header naming each column, one aligned row per job as it ends, and the
totals with where to look next.

Widths come from the campaign's plan (every spec id and app name is known before the first job), and each
cell is padded *before* it is coloured, so colour markup never shifts a column.  ``overall`` and
``functional`` are two labelled columns, and the line under the header says what each means.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from swarmgym.trust.textsafe import shown

DIMS = ("checks", "swarm", "cluster", "diagnostics")
STYLE = {"pass": "green", "partial": "yellow", "fail": "red", "error": "magenta", "infra": "blue", "n/a": "dim",
         "yes": "green", "no": "red"}
KEY = ("[dim]overall: the verdict over every dimension · functional: every golden check passed "
       "(the pass rate counts it)[/]")


@dataclass(frozen=True)
class Columns:
    n: int
    spec: int
    app: int


def columns(jobs: Sequence) -> Columns:
    """Column widths for a campaign's planned jobs (a job has ``seq``, ``spec`` and ``app_slug``)."""
    return Columns(n=max(1, len(str(len(jobs)))), spec=max([4, *(len(shown(j.spec, markup=False)) for j in jobs)]),
                   app=max([3, *(len(shown(j.app_slug, markup=False)) for j in jobs)]))


def _cell(text: str, width: int, style: str | None = None, right: bool = False) -> str:
    raw = shown(text, markup=False)
    padded = shown(raw.rjust(width) if right else raw.ljust(width))
    return f"[{style}]{padded}[/]" if style else padded


def header(c: Columns) -> str:
    cells = [" " * c.n, _cell("spec", c.spec), _cell("app", c.app), "rep", _cell("overall", 7),
             _cell("functional", 10), _cell("wall", 7, right=True), *(_cell(d, len(d)) for d in DIMS), "session"]
    return "[bold]" + "  ".join(cells) + "[/]\n" + KEY


def row(res, c: Columns, new: bool = True) -> str:
    """One job's row (a :class:`~swarmgym.models.JobResult`)."""
    v = res.verdict
    overall = "infra" if res.status == "infra" else "error" if v is None else v.overall
    functional = "yes" if v is not None and v.functional else "no"
    cells = [_cell(str(res.job.seq + 1), c.n, right=True), _cell(res.job.spec, c.spec), _cell(res.job.app_slug, c.app),
             _cell(str(res.job.rep), 3, right=True), _cell(overall, 7, STYLE.get(overall)),
             _cell(functional, 10, STYLE[functional]), _cell(f"{res.wall_secs:.1f}s", 7, right=True)]
    if v is not None:
        cells += [_cell(v.status(d), len(d), STYLE.get(v.status(d))) for d in DIMS]
    else:
        why = f"{res.error.type}: {res.error.message}" if res.error else res.status
        cells.append(_cell(why, sum(len(d) for d in DIMS) + 2 * (len(DIMS) - 1), "magenta"))
    cells.append(f"[dim]{shown(res.session_id)}[/]" + ("" if new else "  [dim](already recorded)[/]"))
    return "  ".join(cells)


def totals(records: Sequence, ran_now: int, planned: int) -> str:
    """The whole campaign's totals from its ledger records (a resumed campaign counts what ran before too):
    ``6/9 functional · 5/9 pass overall``, then what ran now."""
    graded = [r for r in records if r.overall != "infra"]
    functional = sum(1 for r in graded if r.functional)
    passed = sum(1 for r in graded if r.overall == "pass")
    infra = len(records) - len(graded)
    before = len(records) - ran_now
    line = (f"[bold]{functional}/{len(graded)} functional[/] · {passed}/{len(graded)} pass overall"
            + (f" · {infra} could not run (infra)" if infra else ""))
    if not ran_now and records:
        return line + f" · nothing left to run: all {len(records)} of {planned} job(s) were recorded before"
    if before > 0:
        return line + f" · {ran_now} job(s) run now, {before} recorded before"
    return line


def where(runs_dir: Path, ledger_dir: Path) -> str:
    """The last line: the page to open and the run folders."""
    return (f"open {shown(runs_dir / 'BENCHMARK.html')} · each run: {shown(runs_dir)}/<session>/report.html · "
            f"ledger {shown(ledger_dir)}")
