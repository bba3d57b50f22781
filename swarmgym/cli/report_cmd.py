"""``swarmgym bench-report`` | ``bench-csv`` | ``report``: reports rebuilt from the ledger."""
from __future__ import annotations

import json
import math
import time

import click
from rich.console import Console
from rich.table import Table

from swarmgym.cli import config_from
from swarmgym.cli.options import setting
from swarmgym.ledger import Ledger
from swarmgym.trust.textsafe import shown

TONE_RICH = {"better": "green", "worse": "red", "neutral": "yellow"}   # swarmgym.trend.answer's, without SciPy


def pp(x: float) -> str:
    return "–" if x is None or math.isnan(x) else f"{100 * x:+.1f} pp"


def _p(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:.4f}"


def bench_json(data, md_path) -> dict:
    """``bench-report --json``: what BENCHMARK.md says, as data (the same answers, B minus A)."""
    return {"report": str(md_path), "runs": len(data.rows), "folded": data.folded,
            "arms": [{"arm": g.variant, "suite_hash": g.suite_hash, "runs": g.runs, "passes": g.passes,
                      "folded": g.folded, "failures": g.failures.json()} for g in data.groups],
            "head_to_head": [{"a": h.a.variant, "b": h.b.variant, "suite_hash": h.a.suite_hash,
                              "answer": h.answer.json(),
                              "specs": [{"spec": d.spec, "a": [d.a.passes, d.a.runs], "b": [d.b.passes, d.b.runs],
                                         "diff": None if math.isnan(d.diff) else round(d.diff, 4)} for d in h.shared],
                              "failures": [{"class": c.kind, "a": [c.a, c.a_runs], "b": [c.b, c.b_runs],
                                            "diff": _num(c.diff), "interval": [_num(c.lo), _num(c.hi)]}
                                           for c in h.failures]} for h in data.head_to_head]}


def _num(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 4)


def _only(data, h2h):
    """``data`` with only the head-to-heads ``h2h`` (as oriented for ``report --compare``)."""
    from dataclasses import replace

    return replace(data, head_to_head=h2h)


def _failures_table(data) -> Table:
    from swarmgym.models import FAILURE_KINDS

    kinds = [k for k in FAILURE_KINDS if any(g.failures.kinds.get(k) for g in data.groups)]
    kinds += sorted({k for g in data.groups for k in g.failures.kinds} - set(kinds))
    t = Table(title="why runs failed (runs per failure class; requirements the failing checks cover)")
    for col in ("arm", "suite hash", *kinds, "top failing requirements", "devices that got no task"):
        t.add_column(col)
    for g in data.groups:
        f = g.failures
        t.add_row(shown(g.variant), shown(g.suite_hash), *(str(f.kinds.get(k, 0)) for k in kinds),
                  shown(", ".join(f"{r} ×{n}" for r, n in f.requirements.most_common(3))) or "–",
                  shown(", ".join(f"{d} {n}/{f.runs}" for d, n in f.starved.most_common())) or "–")
    return t


def register(cli: click.Group) -> None:
    @cli.command("bench-report")
    @setting("output.json", "--json", "as_json", is_flag=True)
    @click.pass_context
    def bench_report(ctx: click.Context, as_json: bool) -> None:
        """Regenerate runs/BENCHMARK.md and the CSVs from the ledger; print the head-to-head."""
        from swarmgym import reports
        from swarmgym.reports.markdown import WHY_NOT_PAIRED

        cfg = config_from(ctx)
        data = reports.build(cfg)
        paths = reports.regenerate(cfg, data)
        if as_json:
            click.echo(json.dumps(bench_json(data, paths[0])))
            return
        out = Console(width=max(Console().width, 120))
        out.print(f"wrote {paths[0]} ({len(data.rows)} benchmark runs"
                  + (f"; {data.folded} repeated run(s) of a replaying swarm folded" if data.folded else "") + ")")
        if data.groups:
            out.print(_failures_table(data))
        if data.head_to_head:
            t = Table(title="head-to-head (same suite hash only): B − A, runs paired on (spec, seed)")
            for col in ("A", "B", "suite hash", "B − A [interval]", "p (pairs)", "answer"):
                t.add_column(col)
            for h in data.head_to_head:
                a = h.answer
                t.add_row(shown(h.a.variant), shown(h.b.variant), shown(h.a.suite_hash),
                          f"{pp(a.effect)} [{pp(a.lo)}, {pp(a.hi)}]", f"{_p(a.p_value)} ({a.pairs})",
                          f"[{TONE_RICH[a.tone]}]{shown(a.verdict)}[/]")
            out.print(t)
            for h in data.head_to_head:
                if h.answer.next_command:
                    out.print(f"{shown(h.a.variant)} vs {shown(h.b.variant)}: undecided; next: "
                              f"{shown(h.answer.next_command)}")
        elif data.rows:
            out.print("no two variants share a suite hash: nothing to compare")
        for u in data.unpaired:
            out.print(f"[bold red]NOT COMPARED: {shown(u.a)} ({shown(', '.join(u.hashes_a))}) vs {shown(u.b)} "
                      f"({shown(', '.join(u.hashes_b))}): different suite hashes[/]")
        if data.unpaired or data.mixed_hashes:
            out.print(f"[bold red]WARNING: runs on {len(data.hashes)} different suite hashes are never paired[/]")
            out.print(f"[red]{WHY_NOT_PAIRED.replace('**', '')}[/]")

    @cli.command("bench-csv")
    @click.pass_context
    def bench_csv(ctx: click.Context) -> None:
        """Write runs/benchmark-runs.csv and runs/benchmark-summary.csv from the ledger."""
        from swarmgym import reports

        for path in reports.write_csvs(config_from(ctx)):
            click.echo(str(path))

    @cli.command("report")
    @setting("report.n", "-n", "n", type=click.IntRange(min=1))
    @setting("output.json", "--json", "as_json", is_flag=True)
    @setting("report.compare", "--compare", nargs=2, metavar="ARM ARM")
    @setting("report.open", "--open/--no-open", "open_")
    @click.pass_context
    def report(ctx: click.Context, n: int, as_json: bool, compare: tuple[str, str] | None, open_: bool) -> None:
        """Print the last N sessions from the ledger, or write the comparison page of two arms."""
        if compare:
            if len(compare) != 2:
                raise click.UsageError(f"--compare: expected two arms, got {len(compare)} (report.compare)")
            _compare(ctx, list(compare), open_, as_json)
            return
        ledger = Ledger(config_from(ctx).ledger_dir)
        recs = ledger.last(n)
        if as_json:
            click.echo(json.dumps([r.model_dump(mode="json") for r in recs], indent=1))
            return
        if not recs:
            click.echo("the ledger has no sessions yet")
            return
        t = Table(title=f"last {len(recs)} sessions")
        for col in ("ts", "session", "mode", "spec/archetype", "variant", "overall", "functional", "why", "wall",
                    "idle nodes"):
            t.add_column(col, justify="right" if col == "wall" else "left", no_wrap=col in ("ts", "session"))
        colors = {"pass": "green", "partial": "yellow", "fail": "red", "error": "magenta"}
        for r in recs:
            t.add_row(time.strftime("%Y-%m-%d %H:%M", time.gmtime(r.ts)), shown(r.session_id), shown(r.mode),
                      shown(r.archetype or r.spec), shown(r.variant), f"[{colors.get(r.overall, 'white')}]{shown(r.overall)}[/]",
                      "yes" if r.functional else "no", _why(r), f"{r.wall_secs:.1f}s",
                      shown(", ".join(r.idle_nodes)) or "–")
        Console(width=max(Console().width, 150)).print(t)
        changes = _changes_table(ledger)
        if changes is not None:
            Console(width=max(Console().width, 150)).print(changes)


def _why(rec) -> str:
    """The run's failure class and what it failed on (``ok`` when it passed)."""
    f = rec.failure
    if f is None:
        return "[dim]unclassified[/]"
    if f.kind == "ok":
        return "[green]ok[/]"
    reqs = f" ({shown(', '.join(f.requirements[:3]))})" if f.requirements else ""
    return f"[red]{f.kind}[/]{reqs}"


VERDICT_COLORS = {"regressed": "bold red", "improved": "bold green", "no change": "white", "not comparable": "yellow"}


def _changes_table(ledger, n: int = 10) -> Table | None:
    """The last ``n`` finished campaigns and what changed against their baseline (docs/trend.md)."""
    from rich.markup import escape

    from swarmgym.trend.change import pct

    camps = [r for r in ledger.last(n, kind="campaign") if r.change is not None]
    if not camps:
        return None
    t = Table(title=f"last {len(camps)} campaigns: change against their baseline")
    for col in ("finished", "campaign", "arm", "build", "verdict", "pass rate", "baseline", "p / q"):
        t.add_column(col, no_wrap=col in ("finished", "campaign"))
    for r in camps:
        ch = r.change
        assert ch is not None
        o = ch.overall
        t.add_row(time.strftime("%Y-%m-%d %H:%M", time.gmtime(r.ts)), r.campaign_id, escape(ch.arm),
                  escape(ch.build or "–"), f"[{VERDICT_COLORS[ch.verdict]}]{ch.verdict}[/]",
                  f"{o.passes}/{o.runs} = {pct(o.rate)}" if o else "–",
                  (f"{o.base_passes}/{o.base_runs} = {pct(o.base_rate)} ({ch.baseline_rule}, {len(ch.baseline)})"
                   if o else escape(ch.reason)),
                  f"{o.p:.3g} / {o.q:.3g}" if o and o.q is not None else "–")
    return t


def _compare(ctx: click.Context, arms: list[str], open_: bool, as_json: bool = False) -> None:
    from swarmgym import reports
    from swarmgym.reports.benchmark_html import head_to_heads

    cfg = config_from(ctx)
    data = reports.build(cfg)
    known = list(dict.fromkeys(g.variant for g in data.groups))
    for a in arms:
        if a not in known:
            raise click.UsageError(f"--compare: no arm {a!r} in the ledger; known: {', '.join(known) or '(none)'}")
    if arms[0] == arms[1]:
        raise click.UsageError("--compare: expected two different arms")
    path = reports.write_html(cfg, data, arms=arms, name="COMPARE.html")
    h2h = head_to_heads(data, arms)
    if as_json:
        doc = bench_json(data, path)
        click.echo(json.dumps({"page": str(path), "arms": [a for a in doc["arms"] if a["arm"] in arms],
                               "head_to_head": [x for x in bench_json(_only(data, h2h), path)["head_to_head"]]}))
    else:
        for h in h2h:
            Console(soft_wrap=True).print(f"[{TONE_RICH[h.answer.tone]}]{shown(h.answer.verdict)}[/]: "
                                          f"{shown(h.answer.line())}")
        click.echo(str(path))
    if open_:
        click.launch(str(path))
