"""``swarmgym once | loop | explore``: exploratory sessions driven by a brain."""
from __future__ import annotations

import click
from rich.console import Console

from swarmgym.cli import config_from
from swarmgym.cli.options import setting
from swarmgym.core.errors import SwarmgymError
from swarmgym.core.names import check_name
from swarmgym.trust.textsafe import shown

ARCHETYPES = ("heavy-spec", "minimal-spec", "continue-existing")
FIRST_SEED = 1000  # loop and explore: the first session's seed, +1 each
BADGE = {"pass": "[green]pass[/]", "partial": "[yellow]partial[/]", "fail": "[red]fail[/]", "error": "[magenta]error[/]"}


def _session_options(f):
    for opt in reversed([
        setting("explore.persona", "--persona"),
        setting("explore.default_turns", "--turns", type=click.IntRange(1, 50)),
        setting("explore.judge", "--judge/--no-judge"),
        setting("explore.tweak", "--tweak", is_flag=True),
        setting("explore.tweaker", "--tweaker", type=click.Choice(["rule", "brain"])),
        setting("campaign.variant", "--variant"),
        setting("swarm.adapter", "--swarm"),
        setting("brain.provider", "--brain", "provider", type=click.Choice(["claude", "local", "operator"])),
    ]):
        f = opt(f)
    return f


def _run(ctx, console: Console, archetype: str, seed: int, o: dict, campaign_id: str = "explore", *, findings: bool):
    from swarmgym.adapters import preflight
    from swarmgym.explore import run_session

    cfg = config_from(ctx, **{"swarm.adapter": o["swarm"], "brain.provider": o["provider"]})
    preflight(cfg, o["swarm"] or cfg.swarm.adapter, check_name("variant", o["variant"]))
    with console.status(f"{archetype} seed {seed}: starting") as status:
        def progress(msg: str) -> None:
            status.update(f"{archetype} seed {seed}: {msg[:150]}")
            if msg.startswith(("turn ", "tweak", "next move", "brain error")):
                console.print(f"  [dim]{shown(msg[:200])}[/]")

        doc = run_session(cfg, archetype, persona=o["persona"], seed=seed, turns=o["turns"], judge=o["judge"],
                          tweak=o["tweak"], variant=o["variant"], adapter=o["swarm"], tweaker=o["tweaker"],
                          campaign_id=campaign_id, progress=progress)
    _report(console, cfg, doc, findings=findings)
    return doc


def _report(console: Console, cfg, doc, *, findings: bool) -> None:
    mon = doc.data.get("monitor") or {}
    flagged = [(s, d) for s in ("starved", "idle", "underused") for d in mon.get(s, [])]
    fleet = ", ".join(f"[red]{shown(d)} {s}[/]" if s != "underused" else f"[yellow]{shown(d)} {s}[/]"
                      for s, d in flagged) or "balanced"
    err = f"  [magenta]{shown(doc.error.type)}: {shown(doc.error.message[:200])}[/]" if doc.error else ""
    console.print(f"{doc.archetype:<17} {shown(doc.app_slug or '-'):<14} {BADGE.get(doc.overall, doc.overall)} "
                  f"functional={int(doc.functional)} turns={len(doc.turns)} fleet: {fleet}{err}")
    if findings:
        for f in mon.get("findings", []):
            if f["severity"] != "info":
                console.print(f"    [yellow]monitor[/] {shown(f['message'])}  [dim]hint: {shown(f['hint'])}[/]")
        for t in doc.turns:
            if t.tweak:
                tw = t.tweak
                console.print(f"    [blue]tweak[/] turn {t.n}: " + shown(
                    f"applied {[a['key'] for a in tw.get('applied', [])]} rejected {[r['key'] for r in tw.get('rejected', [])]} "
                    f"before {tw.get('before')} after {tw.get('after')}"))
    console.print(f"    [dim]report: {shown(cfg.runs_dir / doc.session_id / 'report.html')}[/]")


def _many(ctx, console, n: int, archetype: str | None, seed: int, o: dict, *, findings: bool) -> None:
    from swarmgym.campaigns.job import new_session_id

    campaign = "loop-" + new_session_id("explore")
    results = []
    for i in range(n):
        arch = archetype or ARCHETYPES[i % len(ARCHETYPES)]
        try:
            results.append(_run(ctx, console, arch, seed + i, o, campaign, findings=findings))
        except SwarmgymError as e:  # e.g. continue-existing with no green app: say so, go on
            console.print(f"{arch:<17} [magenta]skipped[/]: {shown(e)}")
    ok = sum(1 for d in results if d.overall == "pass")
    unbalanced = sum(1 for d in results if (d.data.get("monitor") or {}).get("unbalanced"))
    console.print(f"{len(results)} session(s): {ok} pass, {unbalanced} with an unbalanced fleet; campaign {campaign}")


def register(cli: click.Group) -> None:
    @cli.command("once")
    @setting("explore.archetype", "--archetype", type=click.Choice(ARCHETYPES))
    @setting("explore.seed", "--seed", type=int)
    @_session_options
    @click.pass_context
    def once(ctx, archetype, seed, **o):
        """Run one exploratory session (exit 1 if it ended in error, e.g. the brain gave no valid answer).
        Opens heavy-spec with seed 1 unless told otherwise."""
        doc = _run(ctx, Console(), archetype or "heavy-spec", 1 if seed is None else seed, o, findings=True)
        if doc.overall == "error":
            ctx.exit(1)

    @cli.command("loop")
    @setting("explore.n", "--n", "n", type=click.IntRange(1, 1000))
    @setting("explore.seed", "--seed", type=int)
    @_session_options
    @click.pass_context
    def loop(ctx, n, seed, **o):
        """Run --n sessions cycling heavy-spec, minimal-spec, continue-existing (seeds from 1000, +1 each)."""
        _many(ctx, Console(), n, None, FIRST_SEED if seed is None else seed, o, findings=False)

    @cli.command("explore")
    @setting("explore.n", "--n", "n", type=click.IntRange(1, 1000))
    @setting("explore.archetype", "--archetype", type=click.Choice(ARCHETYPES))
    @setting("explore.seed", "--seed", type=int)
    @_session_options
    @click.pass_context
    def explore(ctx, n, archetype, seed, **o):
        """The exploratory driver: each session's verdict plus monitor findings, idle/starved nodes inline
        (archetypes cycle unless --archetype; seeds from 1000, +1 each)."""
        _many(ctx, Console(), n, archetype, FIRST_SEED if seed is None else seed, o, findings=True)
