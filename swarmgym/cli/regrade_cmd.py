"""``swarmgym regrade --suite SUITE CAMPAIGN_ID``: re-grade a finished campaign under another suite."""
from __future__ import annotations

import json

import click

from swarmgym.cli import config_from
from swarmgym.cli.options import setting
from swarmgym.suitekit.suite import load_suite
from swarmgym.trust.textsafe import shown


@click.command("regrade")
@click.argument("campaign_id")
@setting("suite", "--suite", "suite_name")
@setting("output.json", "--json", "as_json", is_flag=True)
@click.pass_context
def regrade_cmd(ctx: click.Context, campaign_id: str, suite_name: str | None, as_json: bool) -> None:
    """Run SUITE's checks on the workspaces CAMPAIGN_ID left and append re-grade records.

    The originals stay; each re-grade is a new record (job id JOB@HASH, `regrade_of` JOB), written
    once per job and suite hash.
    """
    from rich.console import Console
    from rich.table import Table

    from swarmgym.grading.regrade import regrade_campaign

    cfg = config_from(ctx)
    suite = load_suite(suite_name or cfg.suite, cfg.suites_dir)
    err = Console(stderr=True)
    with err.status(f"re-grading {campaign_id} under {suite.name} ({suite.hash})") as status:
        rows = regrade_campaign(campaign_id, suite, cfg,
                                on_row=lambda r: status.update(f"re-graded {r.job_id}: {r.status}"))
    if as_json:
        for r in rows:
            click.echo(json.dumps(r.model_dump(mode="json")))
        return
    t = Table(title=f"{campaign_id} re-graded under {suite.name} ({suite.hash})", title_justify="left")
    for col in ("job", "spec", "status", "was", "now", "failed checks"):
        t.add_column(col, overflow="fold")
    for r in rows:
        fmt = {True: "pass", False: "fail", None: "-"}
        t.add_row(shown(r.job_id), shown(r.spec), shown(r.status + (f" ({r.reason})" if r.reason else "")),
                  fmt[r.was_functional], fmt[r.functional], shown(" ".join(r.failed)) or "-")
    Console().print(t)
    n = {s: sum(r.status == s for r in rows) for s in ("written", "exists", "skipped")}
    click.echo(f"{n['written']} written, {n['exists']} already re-graded, {n['skipped']} skipped", err=True)


def register(cli: click.Group) -> None:
    cli.add_command(regrade_cmd)
