"""``swarmgym hosts key new | add | list | remove``: the keys fleet hosts sign their results with.

On each host, ``hosts key new NAME`` writes a fresh key to ``queue.host_key_file``; copy that file to
the coordinator over a channel you trust (scp, a USB stick) and run ``hosts key add NAME FILE`` there.
The coordinator accepts a result only when the host it names signed it (docs/security.md).
"""
from __future__ import annotations

import json
from pathlib import Path

import click

from swarmgym.cli import config_from
from swarmgym.cli.options import setting
from swarmgym.core.names import check_name
from swarmgym.trust import hostkeys


def register(cli: click.Group) -> None:
    @cli.group("hosts")
    def hosts() -> None:
        """Fleet hosts the coordinator trusts."""

    @hosts.group("key")
    def key() -> None:
        """Host signing keys (queue.host_key_file on a host, queue.keyring_file on the coordinator)."""

    @key.command("new")
    @click.argument("name")
    @setting("hosts.force", "--force", is_flag=True)
    @click.pass_context
    def new(ctx: click.Context, name: str, force: bool) -> None:
        """On a host: write a fresh key for host NAME to queue.host_key_file (mode 0600)."""
        cfg = config_from(ctx)
        check_name("host", name)
        path = hostkeys.host_key_path(cfg)
        hostkeys.check_outside(path, cfg)
        k = hostkeys.new_key_file(path, name, force=force)
        click.echo(f"wrote the host key of {name} to {path} ({hostkeys.fingerprint(k)})")
        click.echo(f"on the coordinator, with a copy of that file: swarmgym hosts key add {name} FILE")

    @key.command("add")
    @click.argument("name")
    @click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
    @click.pass_context
    def add(ctx: click.Context, name: str, file: Path) -> None:
        """On the coordinator: trust the key in FILE for results from host NAME."""
        cfg = config_from(ctx)
        check_name("host", name)
        k = hostkeys.read_key_file(file)
        ring = hostkeys.keyring_path(cfg)
        hostkeys.check_outside(ring, cfg)
        was_new = hostkeys.trust(ring, name, k)
        click.echo(f"{'trusted' if was_new else 'replaced the key of'} {name} ({hostkeys.fingerprint(k)}) in {ring}")

    @key.command("list")
    @setting("output.json", "--json", "as_json", is_flag=True)
    @click.pass_context
    def list_(ctx: click.Context, as_json: bool) -> None:
        """On the coordinator: the trusted hosts and their key fingerprints (never the keys)."""
        ring = hostkeys.keyring(config_from(ctx))
        rows = {name: hostkeys.fingerprint(k) for name, k in sorted(ring.items())}
        if as_json:
            click.echo(json.dumps(rows, indent=2))
            return
        if not rows:
            click.echo(f"{hostkeys.keyring_path(config_from(ctx))}: no host trusted yet")
        for name, fp in rows.items():
            click.echo(f"{name}  {fp}")

    @key.command("remove")
    @click.argument("name")
    @click.pass_context
    def remove(ctx: click.Context, name: str) -> None:
        """On the coordinator: stop trusting host NAME (its results are refused from now on)."""
        ring = hostkeys.keyring_path(config_from(ctx))
        hostkeys.distrust(ring, name)
        click.echo(f"removed {name} from {ring}")
