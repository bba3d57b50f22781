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


def _p(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:.4f}"


def register(cli: click.Group) -> None:
    @cli.command("bench-report")
    @click.pass_context
    def bench_report(ctx: click.Context) -> None:
        """Regenerate runs/BENCHMARK.md and the CSVs from the ledger; print the head-to-head."""
        from swarmgym import reports
        from swarmgym.reports.markdown import WHY_NOT_PAIRED

        cfg = config_from(ctx)
        data = reports.build(cfg)
        paths = reports.regenerate(cfg, data)
        out = Console(width=max(Console().width, 120))
        out.print(f"wrote {paths[0]} ({len(data.rows)} benchmark runs)")
        if data.head_to_head:
            t = Table(title="head-to-head (same suite hash only)")
            for col in ("A vs B", "suite hash", "specs", "mean Δ (A−B) ± SE", "sign test p", "McNemar p (b/c)"):
                t.add_column(col)
            for h in data.head_to_head:
                se = "–" if math.isnan(h.se) else f"{100 * h.se:.1f}"
                mean = "–" if math.isnan(h.mean) else f"{100 * h.mean:+.1f}"
                t.add_row(shown(f"{h.a.variant} vs {h.b.variant}"), shown(h.a.suite_hash), str(len(h.shared)),
                          f"{mean} ± {se} pp", _p(h.sign.p), f"{_p(h.mcnemar.p)} ({h.mcnemar.b}/{h.mcnemar.c})")
            out.print(t)
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
            _compare(ctx, list(compare), open_)
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
        for col in ("ts", "session", "mode", "spec/archetype", "variant", "overall", "functional", "wall", "idle nodes"):
            t.add_column(col, justify="right" if col == "wall" else "left", no_wrap=col in ("ts", "session"))
        colors = {"pass": "green", "partial": "yellow", "fail": "red", "error": "magenta"}
        for r in recs:
            t.add_row(time.strftime("%Y-%m-%d %H:%M", time.gmtime(r.ts)), shown(r.session_id), shown(r.mode),
                      shown(r.archetype or r.spec), shown(r.variant), f"[{colors.get(r.overall, 'white')}]{shown(r.overall)}[/]",
                      "yes" if r.functional else "no", f"{r.wall_secs:.1f}s", shown(", ".join(r.idle_nodes)) or "–")
        Console(width=max(Console().width, 150)).print(t)
        changes = _changes_table(ledger)
        if changes is not None:
            Console(width=max(Console().width, 150)).print(changes)


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


def _compare(ctx: click.Context, arms: list[str], open_: bool) -> None:
    from swarmgym import reports

    cfg = config_from(ctx)
    data = reports.build(cfg)
    known = list(dict.fromkeys(g.variant for g in data.groups))
    for a in arms:
        if a not in known:
            raise click.UsageError(f"--compare: no arm {a!r} in the ledger; known: {', '.join(known) or '(none)'}")
    if arms[0] == arms[1]:
        raise click.UsageError("--compare: expected two different arms")
    path = reports.write_html(cfg, data, arms=arms, name="COMPARE.html")
    click.echo(str(path))
    if open_:
        click.launch(str(path))
