"""``swarmgym verify``: grade an existing workspace against a suite spec."""
from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from swarmgym.cli import config_from
from swarmgym.cli.options import setting
from swarmgym.core.errors import UsageError
from swarmgym.isolation import CHOICES as ISOLATION_CHOICES
from swarmgym.trust.textsafe import shown

COLOR = {"pass": "green", "partial": "yellow", "fail": "red", "error": "magenta", "n/a": "dim"}


def register(cli: click.Group) -> None:
    @cli.command("verify")
    @click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
    @setting("suite", "--suite")
    @setting("verify.spec", "--spec")
    @setting("verify.hard", "--hard", is_flag=True)
    @setting("output.json", "--json", "as_json", is_flag=True)
    @setting("checks.timeout", "--check-timeout", type=float)
    @setting("sandbox.backend", "--isolation", type=click.Choice(ISOLATION_CHOICES))
    @click.pass_context
    def verify_cmd(ctx, path, suite, spec, hard, as_json, check_timeout, isolation):
        """Grade the app in PATH: exit 0 when functional, 1 when not, 2 on a usage error, 3 when a golden check
        could not be run (an infrastructure error: no verdict on the app)."""
        if not spec:
            raise UsageError("--spec: expected the spec id or app slug to grade against, e.g. compute or rdcalc "
                             "(or SWARMGYM_VERIFY_SPEC)")
        from swarmgym.grading.workspace import grade_workspace  # the check box's sandbox needs psutil

        cfg = config_from(ctx, **{"checks.timeout": check_timeout, "sandbox.backend": isolation})
        s, sp, verdict = grade_workspace(cfg, suite or cfg.suite, spec, path.resolve(), hard)
        if as_json:
            out = {"suite": s.name, "suite_hash": s.hash, "spec": sp.id, "workspace": str(path.resolve()),
                   **verdict.model_dump(mode="json")}
            out["dimensions"] = {k: {"status": d.status, "summary": d.summary,
                                     **({"checks": d.data.get("results", [])} if k == "checks" else d.data)}
                                 for k, d in verdict.dimensions.items()}
            click.echo(json.dumps(out, indent=2))
        else:
            con = Console()
            t = Table(title=shown(f"{sp.id} ({sp.app_slug}) — {s.name} {s.hash}"))
            for col in ("check", "kind", "result", "exit", "secs", "detail"):
                t.add_column(col)
            for r in verdict.check_results():
                t.add_row(shown(r.name), shown(r.kind),
                          "[green]pass[/]" if r.passed else "[magenta]INFRA[/]" if r.error else "[red]FAIL[/]",
                          "" if r.exit_code is None else str(r.exit_code), f"{r.duration_s:.2f}", shown(r.detail))
            con.print(t)
            for name, d in verdict.dimensions.items():
                con.print(f"  {name:<12} [{COLOR.get(d.status, 'white')}]{d.status}[/]  {shown(d.summary)}")
            for f in verdict.findings:
                con.print(f"  [{'red' if f.severity == 'high' else 'yellow'}]{f.severity}[/] {f.dimension}: "
                          f"{shown(f.message)}  [dim]→ {shown(f.hint)}[/]")
            con.print(f"overall [bold {COLOR[verdict.overall]}]{verdict.overall}[/]  functional={verdict.functional}")
        ctx.exit(0 if verdict.functional else 3 if verdict.overall == "error" else 1)
