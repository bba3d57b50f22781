"""``swarmgym compare A B`` and ``swarmgym plan``: sequential paired comparisons (docs/compare.md).

Every option is a setting (``compare.*``, ``plan.*``, shared ones elsewhere; docs/config.md).
"""
from __future__ import annotations

import json

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from swarmgym.cli import config_from
from swarmgym.cli.broker import celery_app, connect, fleet_source
from swarmgym.cli.options import setting
from swarmgym.core.errors import UsageError
from swarmgym.trust.textsafe import shown

DECISION_STYLE = {"B": "[green]B better[/]", "A": "[red]A better[/]", "no difference": "[cyan]no difference[/]",
                  "undecided": "[yellow]undecided[/]", "continue": "[dim]continue[/]"}


def _round_line(rnd, step, st) -> str:
    notes = [shown(f"{p.spec}: {p.note}") for p in rnd.pairs if p.note]
    return (f"round {rnd.round:>2} · {st.runs:>3} runs · B-only {step.b_wins} − A-only {step.a_wins} = "
            f"{step.b_wins - step.a_wins:+d} of {step.pairs} pairs, "
            + (f"decides at ±{step.bound}" if step.bound <= step.a_wins + step.b_wins else "too few to decide yet")
            + f" · p {step.p_value:.4f} · "
            f"B − A {100 * step.effect:+.1f} pp [{100 * step.lo:+.1f}, {100 * step.hi:+.1f}] · "
            f"{DECISION_STYLE.get(step.decision, step.decision)}" + (f"  [yellow]{'; '.join(notes)}[/]" if notes else ""))


def answer_line(ans) -> str:
    """The answer as the terminal shows it: the line every view shares, in B's colour."""
    from rich.markup import escape

    from swarmgym.trend.answer import TONE_RICH

    return f"[bold {TONE_RICH[ans.tone]}]{escape(ans.verdict)}[/]: {escape(ans.line())}"


def register(cli: click.Group) -> None:
    @cli.command("compare")
    @click.argument("a", metavar="A")
    @click.argument("b", metavar="B")
    @setting("compare.until", "--until", type=click.Choice(["decided", "budget"]))
    @setting("compare.max_runs", "--max-runs", type=click.IntRange(1, None))
    @setting("compare.alpha", "--alpha", type=float)
    @setting("compare.min_effect", "--min-effect", type=float)
    @setting("swarm.adapter", "--swarm")
    @setting("suite", "--suite")
    @setting("compare.seed", "--seed", type=int)
    @setting("campaign.parallel", "--parallel", type=click.IntRange(1, 64))
    @setting("compare.fleet", "--fleet", is_flag=True)
    @setting("compare.round_timeout", "--round-timeout", type=float)
    @setting("output.json", "--json", "as_json", is_flag=True)
    @click.pass_context
    def compare(ctx, a, b, until, max_runs, alpha, min_effect, swarm, suite, seed, parallel, fleet,
                round_timeout, as_json):
        """Run A and B on the same specs and seeds in rounds until a sequential test decides.

        An arm is variant[:FLAG=V,…], e.g. `swarmgym compare gguf gguf:GOOSE_SWARM_REVIEW=1`.
        """
        from swarmgym.comparison import compare as cmp
        from swarmgym.comparison.runners import FleetRunner, LocalRunner

        arm_a, arm_b = cmp.parse_arm(a, "A"), cmp.parse_arm(b, "B")
        cfg = config_from(ctx)
        swarm = swarm or cfg.swarm.adapter
        if fleet:
            r = connect(cfg)
            runner = FleetRunner(celery_app(cfg), fleet_source(cfg, r), timeout=round_timeout)
        else:
            from swarmgym.adapters import preflight

            for arm in (arm_a, arm_b):
                preflight(cfg, swarm, arm.variant)
            runner = LocalRunner(parallel)
        st = cmp.new_compare(cfg, arm_a, arm_b, swarm=swarm, suite=suite, alpha=alpha, min_effect=min_effect,
                             max_runs=max_runs, until=until, seed=seed, fleet=fleet)
        console = Console(stderr=as_json, soft_wrap=True)
        console.print(f"compare [bold]{st.compare_id}[/]: A = {shown(st.a.label)}, B = {shown(st.b.label)} (effect: B − A) "
                      f"on {st.suite} {st.suite_hash} via {st.swarm} ({'fleet' if fleet else 'in-process'}); α {alpha:g}, "
                      f"min effect {min_effect:g}, budget {st.max_runs} runs ({st.max_rounds} rounds), seed {st.seed}; "
                      f"disagreement: {st.psi_source}")
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console, transient=True) as prog:
            bar = prog.add_task("round 1", total=st.round_runs)

            def progress(done: int, total: int) -> None:
                prog.update(bar, completed=done, total=total, description=f"round {len(st.rounds) + 1}")

            def on_round(rnd, step) -> None:
                prog.console.print(_round_line(rnd, step, st))
                prog.update(bar, completed=0)

            cmp.run_compare(cfg, st, runner, on_round=on_round, progress=progress)
        out = cmp.summary(st, cfg)
        if as_json:
            click.echo(json.dumps(out))
        else:
            console.print(f"after {out['runs']} runs ({out['rounds']} rounds): "
                          + answer_line(cmp.final_answer(cfg, st)))
            console.print(f"page: {out['page']}")

    @cli.command("plan")
    @click.argument("arms", nargs=-1, metavar="[A B]")
    @setting("plan.effect", "--effect", type=float)
    @setting("compare.alpha", "--alpha", type=float)
    @setting("plan.power", "--power", type=float)
    @setting("output.json", "--json", "as_json", is_flag=True)
    @click.pass_context
    def plan_cmd(ctx, arms, effect, alpha, power, as_json):
        """Expected runs to detect --effect (fixed McNemar design vs sequential), from past disagreement."""
        from swarmgym.comparison.arms import parse_arm
        from swarmgym.comparison.plan import plan

        if len(arms) not in (0, 2):
            raise UsageError(f"plan: expected no arms or two (A B), got {len(arms)}")
        a, b = (parse_arm(arms[0], "A"), parse_arm(arms[1], "B")) if arms else (None, None)
        p = plan(config_from(ctx), effect, alpha=alpha, power=power, a=a, b=b)
        if as_json:
            click.echo(json.dumps({"effect": p.effect, "alpha": p.alpha, "power": p.power, "discordance": p.psi,
                                   "source": p.psi_source, "history_pairs": p.history.pairs,
                                   "history_folded": p.history.folded, "fixed_runs": p.fixed_runs,
                                   "sequential_runs_mean": p.seq_runs_mean, "sequential_budget_runs": p.seq_budget_runs,
                                   "rho": p.rho}))
            return
        c = Console(soft_wrap=True)
        c.print(f"discordance {p.psi:.3f} — {p.psi_source}")
        for (x, y), (n, k) in sorted(p.history.by_arms.items()):
            c.print(f"  {x} vs {y}: {k}/{n} pairs disagreed")
        c.print(f"to detect an effect of {effect:g} with {power:.0%} power at α {alpha:g}:")
        c.print(f"  fixed design (exact McNemar): {p.fixed_runs if p.fixed_runs else 'more than 10000'} runs")
        if p.history.folded:
            c.print(f"  ({p.history.folded} repeated run(s) of a replaying swarm folded: each unit counts once)")
        if p.seq_runs_mean is not None:
            c.print(f"  sequential (swarmgym compare): {p.seq_runs_mean:.0f} runs on average, "
                    f"budget --max-runs {p.seq_budget_runs} (α spent as α·t^{p.rho:g})")
        else:
            c.print("  sequential (swarmgym compare): not reached within the simulated budget")
