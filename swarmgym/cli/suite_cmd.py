"""``swarmgym suite hash | verify | coverage``: freeze a suite, prove its checks discriminate, trace them."""
from __future__ import annotations

import json

import click
from rich.markup import escape

from swarmgym.cli import Group, config_from
from swarmgym.cli.options import setting
from swarmgym.suitekit.coverage import coverage
from swarmgym.suitekit.scaffold import new_spec
from swarmgym.suitekit.suite import load_suite, locked_hash, packaged_suites_dir


def _load(cfg, name: str | None):
    return load_suite(name or cfg.suite, cfg.suites_dir)


@click.group("suite", cls=Group)
def suite_group() -> None:
    """Frozen suites: content hash and self-verification."""


@suite_group.command("hash")
@setting("suite", "--suite", "suite_name")
@click.pass_context
def hash_cmd(ctx: click.Context, suite_name: str | None) -> None:
    """Print the suite's content hash (prompts + checks) and compare it with suite.lock."""
    cfg = config_from(ctx)
    suite = _load(cfg, suite_name)
    locked = locked_hash(suite)
    lock = suite.folder / "suite.lock"
    click.echo(suite.hash)
    if locked is None:
        click.echo(f"{lock}: no lock yet (freeze with `swarmgym suite freeze`)", err=True)
    elif locked != suite.hash:
        click.echo(f"{lock}: MISMATCH, lock holds {locked}; editing a frozen suite makes a new suite", err=True)
        ctx.exit(1)
    else:
        click.echo(f"{lock}: matches", err=True)


def _table(result):
    from rich.table import Table

    t = Table(title=f"suite {result.suite} ({result.hash})", title_justify="left")
    t.add_column("spec")
    t.add_column("app", no_wrap=True)
    t.add_column("failure")
    t.add_column("passed", justify="right")
    t.add_column("failed checks (killed by)", ratio=3)
    t.add_column("targets failed", ratio=1)
    t.add_column("status", ratio=1)
    for r in result.rows:
        status = "[green]OK[/]" if r.ok else f"[red]DEFECT[/]: {r.problem}"
        if r.kind == "reference":
            targets = "-"
        else:
            targets = f"{len(r.targets) - len(r.missed_targets)}/{len(r.targets)}"
            if r.missed_targets:
                targets += " [red]missed " + ", ".join(r.missed_targets) + "[/]"
        ran = f"{len(r.passed)}/{len(r.results)}" + (f" ({len(r.skipped)} not run)" if r.skipped else "")
        t.add_row(r.spec, r.name, (r.failure or "-") + (f" ({r.edge})" if r.edge else ""), ran,
                  " ".join(r.failed) or "-", targets, status)
    return t


def _progress(suite, total):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("verifying {task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=Console(stderr=True), transient=True)


def _run_verification(suite, run, total: int):
    """Run ``run(on_row)`` under a progress bar of ``total`` apps; its result."""
    with _progress(suite, total) as progress:
        task = progress.add_task(suite.name, total=total)

        def on_row(row) -> None:
            progress.update(task, advance=1, description=f"{suite.name}: {row.app_slug}/{row.name}")

        return run(on_row)


def _print_verification(result, workers: int) -> None:
    from rich.console import Console

    out = Console()
    out.print(_table(result))
    for r in result.rows:  # why a reference failed: the tail of each failing check's output
        for res in (x for x in r.results if r.kind == "reference" and not x.passed):
            tail = (res.stderr_tail or res.stdout_tail).strip().splitlines()[-3:]
            out.print(f"[red]DEFECT[/] {r.spec}/{r.name} {res.name}: {escape(res.detail)}")
            for line in tail:
                out.print("    " + line, markup=False, highlight=False)
    for spec in dict.fromkeys(k.spec for k in result.kills):
        mine = [k for k in result.kills if k.spec == spec]
        whole = sum(1 for k in mine if k.mutants and len(k.killed) == len(k.mutants))
        out.print(f"{spec}: kills per requirement: {whole}/{len(mine)} requirements with every breaking mutant killed")
        for k in mine:
            if not k.mutants or len(k.killed) < len(k.mutants):
                alive = [m for m in k.mutants if m not in k.killed]
                out.print(f"  [red]{k.id}[/]: " + (f"survivors {', '.join(alive)}" if alive else "no mutant breaks it"))
    for p in result.problems:
        out.print(f"[red]DEFECT[/] {escape(p)}")
    out.print(f"mutation score: {result.killed}/{result.mutants} killed ({result.mutation_score:.0%}); "
              f"{len(result.rows) - result.mutants} reference(s); {result.wall_s:.1f} s with {workers} worker(s)")
    out.print(f"lock: {'[green]matches[/]' if result.hash_ok else '[red]does not match[/]'} "
              f"({result.locked_hash or 'none'})")
    out.print("[green]suite OK[/]" if result.ok else "[red]suite has defects[/]")


def _json(result) -> str:
    return json.dumps({**result.model_dump(mode="json"), "ok": result.ok, "mutation_score": result.mutation_score},
                      indent=2)


@suite_group.command("verify")
@setting("suite", "--suite", "suite_name")
@setting("checks.timeout", "--check-timeout", type=click.FloatRange(min=0, min_open=True))
@setting("suitekit.workers", "--workers", type=click.IntRange(1, 8))
@setting("suitekit.specs", "--spec", "specs", multiple=True)
@setting("suitekit.mutants", "--mutant", "mutants", multiple=True)
@setting("suitekit.exhaustive", "--exhaustive", is_flag=True)
@setting("output.json", "--json", "as_json", is_flag=True)
@click.pass_context
def verify_cmd(ctx: click.Context, suite_name, check_timeout, workers, specs, mutants, exhaustive, as_json) -> None:
    """Run every reference (must pass all checks) and mutant (must be killed); report kills per requirement.

    Exits 0 only if every reference passes, every mutant is killed by a check covering what it breaks,
    every check is failed by some mutant, each spec has liar/stub/crash mutants, coverage has no hole
    (requirement or edge class without a check, row or mutant), and suite.lock matches.
    """
    from swarmgym.grading.suite_verify import plan, verify_suite

    cfg = config_from(ctx, **{"checks.timeout": check_timeout})
    suite = _load(cfg, suite_name)
    only = list(mutants) or None
    result = _run_verification(suite, lambda on_row: verify_suite(
        suite, cfg, workers=workers, specs=list(specs) or None, on_row=on_row, mutants=only,
        exhaustive=exhaustive),
        len(plan(suite, list(specs) or None, only)))
    if as_json:
        click.echo(_json(result))
    else:
        _print_verification(result, workers)
    ctx.exit(0 if result.ok else 1)


@suite_group.command("freeze")
@setting("suite", "--suite", "suite_name")
@setting("checks.timeout", "--check-timeout", type=click.FloatRange(min=0, min_open=True))
@setting("suitekit.workers", "--workers", type=click.IntRange(1, 8))
@setting("suitekit.exhaustive", "--exhaustive", is_flag=True)
@setting("output.json", "--json", "as_json", is_flag=True)
@click.pass_context
def freeze_cmd(ctx: click.Context, suite_name, check_timeout, workers, exhaustive, as_json) -> None:
    """Freeze a whole suite: write suite.lock once coverage has no hole and verify is clean.

    Refuses (exit 1) a suite with a coverage hole or a verification defect; an existing lock that
    matches is kept (exit 0), one that differs is an error (exit 2): a frozen suite never changes.
    """
    from swarmgym.grading.suite_verify import freeze_suite, plan

    cfg = config_from(ctx, **{"checks.timeout": check_timeout})
    suite = _load(cfg, suite_name)
    result, holes = _run_verification(suite, lambda on_row: freeze_suite(suite, cfg, workers=workers, on_row=on_row,
                                                                               exhaustive=exhaustive),
                                      len(plan(suite)))
    if holes:
        for h in holes:
            click.echo(f"HOLE {h}")
        click.echo(f"not frozen: {len(holes)} coverage hole(s) in suite {suite.name} (see `swarmgym suite coverage`)",
                   err=True)
        ctx.exit(1)
    assert result is not None
    if as_json:
        click.echo(_json(result))
    else:
        _print_verification(result, workers)
    if not result.ok:
        click.echo(f"not frozen: suite {suite.name} has defects", err=True)
        ctx.exit(1)
    click.echo(f"frozen: {suite.folder / 'suite.lock'} holds {suite.hash}", err=True)


@suite_group.command("new")
@click.argument("name")
@setting("suite", "--suite", "suite_name")
@setting("suitekit.slug", "--slug")
@click.pass_context
def new_cmd(ctx: click.Context, name: str, suite_name: str | None, slug: str | None) -> None:
    """Scaffold spec NAME: prompts, requirements with edge classes, checks, a reference app, mutants and a
    golden-table generator (run once). `suite coverage` and `suite verify` are green on it; edit from there.

    Written under the config's `suites_dir` (`SWARMGYM_SUITES_DIR`); with an installed wheel and no
    `suites_dir` set, under `<home>/suites` (set `suites_dir` to it to run the new suite by name)."""
    cfg = config_from(ctx)
    where = cfg.suites_dir
    if where == packaged_suites_dir() and "site-packages" in where.parts:
        where = cfg.home / "suites"
    for path in new_spec(where, suite_name or cfg.suite, name, slug):
        click.echo(str(path))


@suite_group.command("coverage")
@setting("suite", "--suite", "suite_name")
@setting("suitekit.specs", "--spec", "specs", multiple=True)
@setting("output.json", "--json", "as_json", is_flag=True)
@click.pass_context
def coverage_cmd(ctx: click.Context, suite_name, specs, as_json) -> None:
    """Print requirement × checks × mutants, and requirement × edge class × rows × mutants.

    Exits 1 when a requirement has no check or no mutant, or a declared edge class has no golden
    row or no edge mutant (run `suite verify` to prove the kills).
    """
    from rich.console import Console

    cfg = config_from(ctx)
    suite = _load(cfg, suite_name)
    cov = coverage(suite, list(specs) or None)
    if as_json:
        click.echo(json.dumps({**cov.model_dump(mode="json"), "per_spec": cov.per_spec(), "ok": cov.ok}, indent=2))
        ctx.exit(0 if cov.ok else 1)
    out = Console()
    out.print(_requirement_table(cov))
    if cov.edges:
        out.print(_edge_table(cov))
    for spec, n in cov.per_spec().items():
        out.print(f"{spec}: {n['requirements']} requirements, {n['covered']} with a check, {n['broken']} with a mutant")
    for spec in cov.untraced_specs:
        out.print(f"[yellow]{spec}: no requirements listed (an untraced suite)[/]")
    for p in cov.problems:
        out.print(f"[red]HOLE[/] {escape(p)}")
    ctx.exit(0 if cov.ok else 1)


def _requirement_table(cov):
    from rich.table import Table

    t = Table(title=f"suite {cov.suite} ({cov.hash}): requirement × checks × mutants", title_justify="left")
    for col in ("spec", "requirement", "checks", "mutants that break it"):
        t.add_column(col, overflow="fold")
    for r in cov.rows:
        t.add_row(r.spec, r.id + (" (hard)" if r.hard_only else ""), " ".join(r.checks) or "[red]NONE[/]",
                  " ".join(r.mutants) or "[red]NONE[/]")
    return t


def _edge_table(cov):
    from rich.table import Table

    t = Table(title=f"suite {cov.suite}: requirement × edge class × golden rows × edge mutants", title_justify="left")
    for col in ("spec", "requirement", "edge class", "rows", "checks", "edge mutants"):
        t.add_column(col, overflow="fold")
    for c in cov.edges:
        sampled = c.rows or c.checks
        t.add_row(c.spec, c.id, c.edge, str(c.rows) if sampled else "[red]0[/]", " ".join(c.checks) or "-",
                  " ".join(c.mutants) or "-")
    return t


def register(cli: click.Group) -> None:
    cli.add_command(suite_group)
