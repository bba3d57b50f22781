"""The ``swarmgym`` command line: thin click commands over the Python API.

One module per command group; each exposes ``register(group)``.  Every error derived from
:class:`swarmgym.core.errors.SwarmgymError` is printed as one line and exits with its code.
"""
from __future__ import annotations

import difflib
import importlib
import sys
from typing import Any

import click

from swarmgym.cli.options import CONFIG, bind_all, command_config, setting
from swarmgym.config import Config, value_of
from swarmgym.core.errors import SwarmgymError

COMMAND_MODULES = [
    "suite_cmd",     # suite hash | suite verify
    "verify_cmd",    # verify
    "bench_cmd",     # bench
    "report_cmd",    # bench-report | bench-csv | report
    "ledger_cmd",    # ledger rebuild | ledger show
    "fleet_cmd",     # enqueue | status | resume | cancel | workers | worker | schedule
    "supervise_cmd", # supervise (the Procfile, each process restarted on its own)
    "explore_cmd",   # once | loop | explore
    "regrade_cmd",   # regrade --suite SUITE CAMPAIGN_ID
    "compare_cmd",   # compare | plan
    "tune_cmd",      # tune
    "trend_cmd",     # trend | baseline set|show|clear
    "hosts_cmd",     # hosts key new | add | list | remove
    "doctor_cmd",    # doctor
]


class Group(click.Group):
    """The CLI's groups: a SwarmgymError is one line and its exit code; a mistyped command gets "Did you
    mean …?" (as click does for options); nested groups are this class too."""

    group_class = type

    def resolve_command(self, ctx, args):
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as e:
            name = args[0] if args else ""
            if name and not name.startswith("-") and "Did you mean" not in e.message:
                close = difflib.get_close_matches(name, self.list_commands(ctx), n=3, cutoff=0.6)
                if close:
                    e.message += f" Did you mean {' or '.join(repr(c) for c in close)}?"
            raise

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except SwarmgymError as e:
            click.echo(f"swarmgym: {e}", err=True)
            ctx.exit(e.exit_code)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120})
@setting("home", "--home", type=click.Path(file_okay=False))
@setting("home", "--root", "root", type=click.Path(file_okay=False), deprecated_alias=True)
@click.version_option(package_name="swarmgym")
@click.pass_context
def cli(ctx: click.Context, home: str | None, root: str | None) -> None:
    """swarmgym: benchmark coding swarms by running what they built.

    Every option is also an env var (SWARMGYM_<SECTION>_<NAME>, shown in each command's --help) and a
    config.yaml key; docs/config.md lists them all. Start with `swarmgym doctor`."""
    ctx.ensure_object(dict)
    ctx.obj["root"] = home or root


def config_from(ctx: click.Context, **overrides: Any) -> Config:
    """The typed config the running command's options came from (:mod:`swarmgym.cli.options`), with
    ``overrides`` (dotted keys; None: not set) on top."""
    cfg = ctx.meta.get(CONFIG) or command_config(ctx)
    extra = {k: v for k, v in overrides.items() if v is not None and value_of(cfg, k) != v}
    return command_config(ctx, extra) if extra else cfg


def _register() -> None:
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(f"swarmgym.cli.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"swarmgym.cli.{name}":
                continue  # command group not built yet
            raise
        mod.register(cli)
    bind_all(cli)  # every option reads the typed config (swarmgym.cli.options)


_register()


def main() -> None:
    try:
        cli(obj={})
    except SwarmgymError as e:  # raised outside a command (e.g. at parse time)
        click.echo(f"swarmgym: {e}", err=True)
        sys.exit(e.exit_code)
