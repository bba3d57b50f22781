"""``swarmgym trend`` (pass rates over time, per arm) and ``swarmgym baseline set|show|clear`` (docs/trend.md)."""
from __future__ import annotations

import json
import math
import time

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from swarmgym.cli import config_from
from swarmgym.cli.options import setting
from swarmgym.ledger import Ledger
from swarmgym.trend.baseline import load_pins, pinned_night, save_pins

VERDICT = {"regressed": "[bold red]regressed[/]", "improved": "[bold green]improved[/]", "no change": "no change",
           "not comparable": "[yellow]not comparable[/]", None: "[dim]–[/]"}


def _rate(r) -> str:
    if not r.runs:
        return "–"
    lo, hi = r.interval
    return f"{r.passes}/{r.runs} = {100 * r.rate:.0f}% [dim][{100 * lo:.0f}–{100 * hi:.0f}][/]"


def _bar(rate: float, width: int = 12) -> str:
    if math.isnan(rate):
        return ""
    n = round(rate * width)
    return "█" * n + "[dim]" + "·" * (width - n) + "[/]"


def _table(a, with_specs: bool) -> Table:
    t = Table(title=f"{escape(a.arm)}: {len(a.points)} campaign(s)", title_justify="left")
    for col in ("started (UTC)", "campaign", "build", "suite", "pass rate [Wilson 95 %]", "", "change"):
        t.add_column(col, no_wrap=col in ("started (UTC)", "campaign"))
    specs = sorted({s for p in a.points for s in p.specs}) if with_specs else []
    for s in specs:
        t.add_column(escape(s))
    for p in a.points:
        suite = f"{p.suite or '?'} {(p.suite_hash or '').removeprefix('sha256:')[:8]}"
        t.add_row(time.strftime("%Y-%m-%d %H:%M", time.gmtime(p.started)), p.campaign_id, escape(p.build or "–"),
                  escape(suite), _rate(p.total) + (f" [blue]+{p.infra} infra[/]" if p.infra else ""),
                  _bar(p.total.rate), VERDICT.get(p.verdict, escape(p.verdict or "–")),
                  *[_rate(p.specs[s]) if s in p.specs else "–" for s in specs])
    return t


def register(cli: click.Group) -> None:
    @cli.command("trend")
    @setting("trend.arm", "--arm")
    @setting("trend.since", "--since")
    @setting("trend.spec", "--spec", "with_specs", is_flag=True)
    @setting("output.json", "--json", "as_json", is_flag=True)
    @click.pass_context
    def trend_cmd(ctx, arm, since, with_specs, as_json):
        """Pass rate of each campaign, per arm, in time order: build, suite hash, Wilson interval, change."""
        from swarmgym.trend import series as trend

        cfg = config_from(ctx)
        start = trend.parse_since(since)
        arms = trend.load(Ledger(cfg.ledger_dir), arm=arm, since=start)
        if as_json:
            click.echo(json.dumps({"generated": time.time(), "since": start,
                                   "arms": [a.json(with_specs) for a in arms]}, indent=1))
            return
        console = Console(width=max(Console().width, 160))
        if not any(a.points for a in arms):
            console.print("no benchmark campaign in the ledger" + (f" since {since}" if since else "")
                          + ": run swarmgym bench")
            return
        for a in arms:
            if a.points:
                console.print(_table(a, with_specs))

    @cli.group("baseline")
    def baseline() -> None:
        """Pin the campaign an arm's later campaigns are compared with (default: the series' own history)."""

    @baseline.command("set")
    @click.argument("arm")
    @click.argument("campaign_id")
    @click.pass_context
    def baseline_set(ctx, arm, campaign_id):
        """Compare ARM's next campaigns with CAMPAIGN_ID (instead of the campaigns since the last change)."""
        cfg = config_from(ctx)
        ledger = Ledger(cfg.ledger_dir)
        known = _known_arms(ledger)
        if arm not in known:
            raise click.UsageError(f"ARM {arm!r}: no such arm in the ledger; known: {', '.join(known) or '(none)'}")
        night = pinned_night(ledger, campaign_id)  # one line if the campaign has no run
        pins = load_pins(cfg.ledger_dir)
        pins[arm] = campaign_id
        save_pins(cfg.ledger_dir, pins)
        note = "" if night.arm == arm else f" (note: that campaign ran arm {night.arm!r})"
        click.echo(f"{arm}: baseline pinned to {campaign_id}: {night.passes}/{night.runs} functional"
                   + (f", build {night.build}" if night.build else "") + note)

    @baseline.command("show")
    @click.argument("arm", required=False)
    @setting("output.json", "--json", "as_json", is_flag=True)
    @click.pass_context
    def baseline_show(ctx, arm, as_json):
        """The pinned baselines (or ARM's); an arm without a pin uses its series' campaigns since the last change."""
        cfg = config_from(ctx)
        pins = load_pins(cfg.ledger_dir)
        if arm is not None:
            pins = {arm: pins[arm]} if arm in pins else {}
        if as_json:
            click.echo(json.dumps(pins, indent=1))
            return
        if not pins:
            click.echo((f"{arm}: " if arm else "") + "no pinned baseline: each campaign is compared with the "
                       "campaigns of its series since the last change (docs/trend.md)")
            return
        for a, cid in sorted(pins.items()):
            click.echo(f"{a}: {cid}")

    @baseline.command("clear")
    @click.argument("arm")
    @click.pass_context
    def baseline_clear(ctx, arm):
        """Unpin ARM's baseline: back to the campaigns of its series since the last change."""
        cfg = config_from(ctx)
        pins = load_pins(cfg.ledger_dir)
        if arm not in pins:
            raise click.UsageError(f"ARM {arm!r}: no pinned baseline; pinned: {', '.join(sorted(pins)) or '(none)'}")
        del pins[arm]
        save_pins(cfg.ledger_dir, pins)
        click.echo(f"{arm}: baseline unpinned")


def _known_arms(ledger) -> list[str]:
    """Arms as change detection and bench-report name them: from the campaign records and the runs."""
    from swarmgym.trend import series as trend
    arms = {r.change.arm for r in ledger.records(kind="campaign") if r.change is not None}
    return sorted(arms | set(trend.known_arms(trend.load(ledger))))
