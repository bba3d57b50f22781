"""``swarmgym bench``: benchmark mode in-process (the embedded default)."""
from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

import click
from click.core import ParameterSource
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from swarmgym.cli import bench_view, config_from
from swarmgym.cli.options import setting
from swarmgym.core.errors import UsageError
from swarmgym.core.names import check_name
from swarmgym.isolation import CHOICES as ISOLATION_CHOICES
from swarmgym.isolation import resolve
from swarmgym.ledger import Ledger
from swarmgym.models import TIERS


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread as Ctrl-C raises KeyboardInterrupt: the campaign stops the same way."""


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    def stop(signum, frame):
        raise Terminated()

    try:
        old = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread (a test calling the command in a thread): nothing to catch
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _cut_short(console: Console, cfg, campaign, why: str = "") -> None:
    from swarmgym.campaigns.bench import pending_jobs

    console.print(f"[yellow]cut short{' by ' + why if why else ''}:[/] {len(pending_jobs(cfg, campaign))} job(s) "
                  f"not recorded; finish with: swarmgym bench --resume {campaign.campaign_id}")


VERDICT_STYLE = {"regressed": "bold red", "improved": "bold green", "no change": "dim", "not comparable": "yellow"}


def _change_line(rec) -> str:
    from swarmgym.trend.change import line

    style = VERDICT_STYLE.get(rec.change.verdict if rec.change else "", "")
    return f"[{style}]{escape(line(rec.change))}[/]" if style else escape(line(rec.change))


def _from_schedule(ctx, cfg, name: str, tier: str, variant: str) -> tuple[str, str]:
    """The schedule's tier and variant; an explicit --tier/--variant that disagrees is a usage error."""
    sched = cfg.schedule(name)
    if sched is None:
        known = ", ".join(s.name for s in cfg.schedules) or "none in config.yaml"
        raise UsageError(f"--schedule {name!r}: no such schedule (known: {known})")
    for opt, given, want in (("tier", tier, sched.tier), ("variant", variant, sched.variant)):
        if ctx.get_parameter_source(opt) not in (ParameterSource.DEFAULT, None) and given != want:
            raise UsageError(f"--{opt} {given!r}: schedule {name!r} runs {opt} {want!r}; drop --{opt} or --schedule")
    return sched.tier, sched.variant


def register(cli: click.Group) -> None:
    @cli.command("bench")
    @setting("campaign.tier", "--tier", type=click.Choice(list(TIERS)))
    @setting("campaign.variant", "--variant")
    @setting("swarm.adapter", "--swarm")
    @setting("suite", "--suite")
    @setting("campaign.parallel", "--parallel", type=click.IntRange(1, 64))
    @setting("campaign.seed", "--seed", type=int)
    @setting("bench.schedule", "--schedule", metavar="NAME")
    @setting("bench.resume", "--resume", metavar="CAMPAIGN_ID")
    @setting("checks.timeout", "--check-timeout", type=float)
    @setting("swarm.timeout", "--swarm-timeout", type=float)
    @setting("sandbox.backend", "--isolation", type=click.Choice(ISOLATION_CHOICES))
    @setting("explore.default_turns", "--turns", type=int, help="ignored in benchmark mode")
    @setting("explore.judge", "--judge/--no-judge", help="ignored in benchmark mode")
    @setting("explore.tweak", "--tweak", is_flag=True, help="ignored in benchmark mode")
    @click.pass_context
    def bench(ctx, tier, variant, swarm, suite, parallel, seed, schedule, resume, check_timeout, swarm_timeout,
              isolation, turns, judge, tweak):
        """Run the frozen suite through the swarm in-process and record every run in the ledger."""
        from swarmgym.adapters import preflight
        from swarmgym.campaigns.bench import new_bench_campaign, pending_jobs, resume_campaign, run_campaign

        console = Console(soft_wrap=True)
        ignored = [f"--{n.replace('_', '-')}" for n in ("turns", "judge", "tweak")
                   if ctx.get_parameter_source(n) is ParameterSource.COMMANDLINE]
        ignored = ["--no-judge" if n == "--judge" and not judge else n for n in ignored]
        if ignored:
            console.print(f"[yellow]note:[/] {', '.join(ignored)} ignored in benchmark mode (exploratory only)")

        cfg = config_from(ctx, **{"checks.timeout": check_timeout, "swarm.timeout": swarm_timeout,
                                  "sandbox.backend": isolation})
        if resume:
            campaign = resume_campaign(cfg, resume)
            preflight(cfg, campaign.swarm, campaign.variant)
        else:
            if schedule:
                tier, variant = _from_schedule(ctx, cfg, schedule, tier, variant)
            check_name("variant", variant)
            preflight(cfg, swarm or cfg.swarm.adapter, variant)
            resolve(cfg.sandbox.backend, swarm or cfg.swarm.adapter)  # refuse before anything is planned
            campaign = new_bench_campaign(cfg, tier, variant, swarm=swarm or cfg.swarm.adapter, suite=suite, seed=seed,
                                          schedule=schedule)
        boxed = resolve(cfg.sandbox.backend, campaign.swarm)
        todo = pending_jobs(cfg, campaign)
        console.print(f"campaign [bold]{campaign.campaign_id}[/]: {campaign.variant} / {campaign.tier} / "
                      f"{campaign.suite} {campaign.suite_hash} via {campaign.swarm}; "
                      f"{len(todo)} of {len(campaign.jobs)} job(s) to run, seed {campaign.jobs[0].seed if campaign.jobs else 0}"
                      + (f"; flags {campaign.flags}" if campaign.flags else "") + f"; isolation {boxed}")
        ends: list[str] = []
        cols = bench_view.columns(campaign.jobs)
        console.print(bench_view.header(cols))
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console, transient=True) as progress:
            bar = progress.add_task("bench", total=len(todo))

            def started(job):
                progress.update(bar, description=f"running {job.spec} rep {job.rep}")

            def finished(res, new):
                progress.console.print(bench_view.row(res, cols, new))
                progress.advance(bar)

            def finalized(rec, alarm):
                ends.append(_change_line(rec))
                if alarm is not None:
                    ends.append(("[green]" if alarm.ok else "[red]") + escape(alarm.describe()) + "[/]")

            try:
                with _sigterm_as_interrupt():
                    results = run_campaign(cfg, campaign, parallel=parallel, on_start=started, on_result=finished,
                                           on_finalized=finalized)
            except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (a service stop, `kill`): the same hint
                progress.stop()
                _cut_short(console, cfg, campaign, "SIGTERM" if isinstance(e, Terminated) else "")
                ctx.exit(143 if isinstance(e, Terminated) else 130)
        recorded = Ledger(cfg.ledger_dir).records(kind="session", campaign_id=campaign.campaign_id)
        console.print(bench_view.totals([r for r in recorded if r.regrade_of is None], len(results),
                                        len(campaign.jobs)))
        for text in ends:
            console.print(text)
        console.print(bench_view.where(cfg.runs_dir, cfg.ledger_dir))
        if pending_jobs(cfg, campaign):  # only a campaign that was cut short needs the hint
            _cut_short(console, cfg, campaign)
