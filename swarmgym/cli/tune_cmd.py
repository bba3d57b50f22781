"""``swarmgym tune A B C …``: the best of K arms in an anytime-valid race (docs/compare.md).

Every option is a setting (``tune.*``, shared ones elsewhere; docs/config.md).
"""
from __future__ import annotations

import json

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from swarmgym.cli import config_from
from swarmgym.cli.broker import celery_app, connect, fleet_source
from swarmgym.cli.options import setting
from swarmgym.core.errors import UsageError
from swarmgym.trust.textsafe import shown

VERDICT_STYLE = {"best": "bold green", "no arm better": "bold cyan", "undecided": "bold yellow", "continue": "dim"}


def _round_line(rnd, race, st) -> str:
    alive = [st.label(i) for i in range(len(st.arms)) if race.alive[0, i]]
    out = [f"{st.label(int(i))} (shown worse than {st.label(by)})" for i, by in rnd.eliminated.items()]
    idle = [st.label(i) for i in range(len(st.arms)) if race.alive[0, i] and i not in rnd.arms]
    return (f"round {rnd.round:>2} · {st.runs:>4} runs · in the race: {shown(', '.join(alive))}"
            + (f" · [dim]sat out: {shown(', '.join(idle))}[/]" if idle else "")
            + (f" · [red]out: {shown('; '.join(out))}[/]" if out else "")
            + (f" · [yellow]{shown('; '.join(rnd.notes))}[/]" if rnd.notes else ""))


def register(cli: click.Group) -> None:
    @cli.command("tune")
    @click.argument("arms", nargs=-1, metavar="ARM ARM [ARM…]")
    @setting("tune.baseline", "--baseline", metavar="ARM")
    @setting("tune.confidence", "--confidence", type=float)
    @setting("tune.min_effect", "--min-effect", type=float)
    @setting("tune.max_runs", "--max-runs", type=click.IntRange(1, None))
    @setting("swarm.adapter", "--swarm")
    @setting("suite", "--suite")
    @setting("tune.seed", "--seed", type=int)
    @setting("campaign.parallel", "--parallel", type=click.IntRange(1, 64))
    @setting("tune.fleet", "--fleet", is_flag=True)
    @setting("tune.round_timeout", "--round-timeout", type=float)
    @setting("tune.resume", "--resume", metavar="TUNE_ID")
    @setting("output.json", "--json", "as_json", is_flag=True)
    @click.pass_context
    def tune(ctx, arms, baseline, confidence, min_effect, max_runs, swarm, suite, seed, parallel, fleet,
             round_timeout, resume, as_json):
        """Race arms (variant[:FLAG=V,…], flags and env knobs) in rounds on the same specs and seeds: an arm
        leaves once another is shown better; the race ends when one arm is best with the asked confidence, or
        when no arm beats the baseline by --min-effect.

        Example: `swarmgym tune gguf gguf:GOOSE_SWARM_REVIEW=1 gguf:GOOSE_SWARM_SMOKE=1 gguf:GOOSE_LOCAL_CONTEXT_CAP=4096`
        """
        from swarmgym.comparison import tune as tn
        from swarmgym.comparison.arms import parse_arm
        from swarmgym.comparison.runners import FleetRunner, LocalRunner

        cfg = config_from(ctx)
        if resume:
            if arms:
                raise UsageError("tune --resume: expected no arms (a resumed tune races its own)")
            st = tn.load_state(cfg, resume)
        else:
            parsed = [parse_arm(a, f"arm {i + 1}") for i, a in enumerate(arms)]
            if len(parsed) < 2:
                raise UsageError(f"tune: expected at least two arms (variant[:FLAG=V,…]), got {len(parsed)}")
            st = None
        mode_fleet = (st.mode == "queue") if st else fleet
        swarm = st.swarm if st else (swarm or cfg.swarm.adapter)
        if mode_fleet:
            r = connect(cfg)
            runner = FleetRunner(celery_app(cfg), fleet_source(cfg, r), timeout=round_timeout)
        else:
            from swarmgym.adapters import preflight

            for a in (st.arms if st else parsed):
                preflight(cfg, swarm, a.variant)
            runner = LocalRunner(parallel)
        if st is None:
            st = tn.new_tune(cfg, parsed, swarm=swarm, baseline=parse_arm(baseline, "--baseline") if baseline else None,
                             suite=suite, confidence=confidence, min_effect=min_effect, max_runs=max_runs, seed=seed,
                             fleet=fleet)
        console = Console(stderr=as_json, soft_wrap=True)
        console.print(f"tune [bold]{st.tune_id}[/]{' (resumed)' if resume else ''}: {len(st.arms)} arms, baseline "
                      f"{escape(st.label(st.baseline))}, on {st.suite} {st.suite_hash} via {st.swarm}; confidence "
                      f"{1 - st.alpha:g}, min effect {st.min_effect:g}, budget {st.max_runs} runs, seeds from {st.seed}")
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console, transient=True) as prog:
            bar = prog.add_task("round 1", total=1)

            def progress(done: int, total: int) -> None:
                prog.update(bar, completed=done, total=total, description=f"round {len(st.rounds) + 1}")

            def on_round(rnd, race) -> None:
                prog.console.print(_round_line(rnd, race, st))

            tn.run_tune(cfg, st, runner, on_round=on_round, progress=progress)
        out = tn.summary(st, cfg=cfg)
        if as_json:
            click.echo(json.dumps(out))
            return
        console.print(f"[{VERDICT_STYLE.get(st.decision, 'white')}]{escape(out['verdict'])}[/] after {out['runs']} runs "
                      f"({out['rounds']} rounds)")
        vs = out["versus_baseline"]
        if vs:
            console.print(f"  {escape(vs['second'])} − {escape(vs['first'])}: {100 * vs['effect']:+.1f} pp "
                          f"[{100 * vs['lo']:+.1f}, {100 * vs['hi']:+.1f}] on {vs['pairs']} pairs")
        if out["next"]:
            console.print(f"  next: {escape(out['next'])}")
        console.print(f"page: {out['page']}")
