"""``swarmgym doctor``: everything a run needs, checked, on one screen (or ``--json``); exit 0 only when
every check passes."""
from __future__ import annotations

import json

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from swarmgym.cli import config_from
from swarmgym.cli.options import setting

MARK = {"pass": "[green]ok[/]", "fail": "[bold red]FAIL[/]", "skip": "[dim]n/a[/]"}


def register(cli: click.Group) -> None:
    @cli.command("doctor")
    @setting("swarm.adapter", "--swarm")
    @setting("output.json", "--json", "as_json", is_flag=True)
    @click.pass_context
    def doctor(ctx: click.Context, swarm: str | None, as_json: bool) -> None:
        """Check what a run needs: Python, the isolation box, the swarm and its pool, Redis, host keys, the
        ledger, free disk. Each miss says how to fix it; exit 0 only when every check passes."""
        from swarmgym.doctor import all_pass, diagnose

        cfg = config_from(ctx)
        findings = diagnose(cfg)
        ok = all_pass(findings)
        if as_json:
            click.echo(json.dumps({"ok": ok, "home": str(cfg.home), "swarm": cfg.swarm.adapter,
                                   "checks": [f.as_dict() for f in findings]}, indent=2))
            ctx.exit(0 if ok else 1)
        console = Console(width=max(Console().width, 100))
        console.print(f"swarmgym doctor · home {escape(str(cfg.home))} · swarm {escape(cfg.swarm.adapter)}")
        t = Table.grid(padding=(0, 2))
        t.add_column(no_wrap=True)
        t.add_column(no_wrap=True)
        t.add_column(overflow="fold")
        for f in findings:
            text = escape(f.found)
            if f.status == "fail":
                text += f"\n[yellow]→ {escape(f.fix)}[/]" + (f" [dim](needed by {f.needed_for})[/]"
                                                              if f.needed_for != "every run" else "")
            t.add_row(MARK[f.status], f.name, text)
        console.print(t)
        failed = [f.name for f in findings if f.status == "fail"]
        passed = sum(f.status == "pass" for f in findings)
        console.print(f"{passed} of {len(findings)} checks pass"
                      + (f"; [bold red]to fix: {escape(', '.join(failed))}[/]" if failed else "; ready to run"))
        ctx.exit(0 if ok else 1)
