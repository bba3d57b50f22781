"""``swarmgym supervise``: run a Procfile's processes and keep each one running on its own
(:mod:`swarmgym.workers.supervise`): the local stack of docs/fleet.md section 1, where honcho would stop
everything when one host dies."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from swarmgym.cli import config_from
from swarmgym.cli.options import setting
from swarmgym.config import read_dotenv


@click.command("supervise")
@setting("supervise.procfile", "--procfile", type=click.Path(dir_okay=False))
@setting("supervise.restart_max", "--restart-max", type=float)
@setting("supervise.stop_timeout", "--stop-timeout", type=float)
@click.pass_context
def supervise(ctx: click.Context, procfile: str, restart_max: float, stop_timeout: float) -> None:
    """Run every process of the Procfile and restart any that exits; the others keep running. Ctrl-C or
    SIGTERM stops them all."""
    from swarmgym.workers.supervise import Supervisor, parse_procfile

    cfg = config_from(ctx)
    path = Path(procfile)
    entries = parse_procfile(path)
    env = {**read_dotenv(Path(cfg.home) / ".env"), **os.environ}  # like the settings: the process env wins
    env.setdefault("SWARMGYM_HOME", str(cfg.home))
    sup = Supervisor(entries, env, path.resolve().parent, restart_max=restart_max, stop_timeout=stop_timeout,
                     out=sys.stdout)
    sys.exit(sup.run())


def register(cli: click.Group) -> None:
    cli.add_command(supervise)
