"""``swarmgym ledger rebuild`` | ``ledger show JOB_OR_SESSION``."""
from __future__ import annotations

import click

from swarmgym.cli import config_from
from swarmgym.core.errors import UsageError
from swarmgym.ledger import Ledger


def register(cli: click.Group) -> None:
    @cli.group("ledger")
    def ledger() -> None:
        """Inspect or repair the ledger (ledger/sessions.jsonl + ledger/ledger.sqlite)."""

    @ledger.command("rebuild")
    @click.pass_context
    def rebuild(ctx: click.Context) -> None:
        """Recreate ledger.sqlite from sessions.jsonl (the source of truth)."""
        lg = Ledger(config_from(ctx).ledger_dir)
        n = lg.rebuild()
        click.echo(f"rebuilt {lg.db} from {lg.jsonl}: {n} records")

    @ledger.command("show")
    @click.argument("key", metavar="JOB_OR_SESSION")
    @click.pass_context
    def show(ctx: click.Context, key: str) -> None:
        """Print the ledger record(s) of a job_id or session_id as JSON."""
        lg = Ledger(config_from(ctx).ledger_dir)
        recs = lg.find(key)
        if not recs:
            raise UsageError(f"JOB_OR_SESSION {key!r}: no ledger record with that job_id or session_id in {lg.jsonl}")
        for r in recs:
            click.echo(r.model_dump_json(indent=2))
