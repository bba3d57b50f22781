"""Fleet commands: ``enqueue``, ``status``, ``resume``, ``cancel``, ``workers``, ``worker``, ``schedule list``.

Each is a module-level click command (importable, testable with click's ``CliRunner``); what they show is
:mod:`swarmgym.cli.status_view`, the Celery command line ``worker`` runs is
:mod:`swarmgym.workers.launch`.  They talk to Redis/Celery through the one app of
:func:`swarmgym.queue.app.make_app`, so the CLI loads the same broker settings as the workers.  Every
option is a setting of the typed config (:mod:`swarmgym.cli.options`; docs/config.md).
"""
from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from swarmgym.cli import Group, config_from, status_view
from swarmgym.cli.broker import celery_app, connect, embedded, fleet_source, record_source
from swarmgym.cli.options import setting
from swarmgym.core.errors import QueueError, UsageError
from swarmgym.core.hosts import host_name
from swarmgym.core.names import check_name
from swarmgym.isolation import CHOICES as ISOLATION_CHOICES
from swarmgym.isolation import resolve
from swarmgym.models import TIERS
from swarmgym.suitekit.suite import load_suite
from swarmgym.trust import hostkeys
from swarmgym.trust.secrets import mask_url
from swarmgym.trust.textsafe import shown

if TYPE_CHECKING:
    import redis

    from swarmgym.campaigns.records import RecordSource
    from swarmgym.config import Config
    from swarmgym.queue.progress import CampaignState


def campaign_state(cfg: Config, r: redis.Redis | None, cid: str, source: RecordSource | None = None) -> CampaignState:
    """The campaign's counters and last changes (constant time) with what the recording side knows of it
    (:mod:`swarmgym.queue.progress`)."""
    return campaign_states(cfg, r, [cid], source or record_source(cfg, r, cid))[0]


def campaign_states(cfg: Config, r: redis.Redis | None, cids: list[str], source: RecordSource) -> list[CampaignState]:
    from swarmgym.queue import progress

    try:
        return progress.states(r, source, cids)
    except (sqlite3.Error, OSError) as e:  # the ledger's disk is full or gone: one line, never a traceback
        from swarmgym.queue.durable import describe

        raise QueueError(f"{cfg.ledger_dir}: cannot read the ledger ({describe(e)})") from None


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=1, default=str))


def _print_summary(console: Console, st: CampaignState) -> None:
    console.print(shown(status_view.summary(st), multiline=True), soft_wrap=True)
    if st.note:
        Console(stderr=True).print(f"[yellow]{shown(st.note)}[/]")


BIG_PLAN = 1000  # jobs: above this, sending shows a progress bar


@contextlib.contextmanager
def _send_progress() -> Iterator[Callable[..., None]]:
    """A ``progress(n_sent)`` callback for :func:`dispatch.send_jobs`; draws a bar (stderr) only once the
    first batch is out of a plan that is still going (large plans), so small enqueues print nothing."""
    console = Console(stderr=True)
    prog = Progress(TextColumn("sending"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                    transient=True)
    state: dict = {}

    def update(n: int, total: int | None = None) -> None:
        if "task" not in state:
            if (total or 0) < BIG_PLAN:
                return
            prog.start()
            state["task"] = prog.add_task("sending", total=total)
        prog.update(state["task"], completed=n)

    try:
        yield update
    finally:
        if "task" in state:
            prog.stop()


def _watch(cfg: Config, r: redis.Redis, cid: str, console: Console, timeout: float | None = None) -> CampaignState:
    """A live progress bar from the counters alone (one Redis round trip a second); then the whole state."""
    from swarmgym.queue import durable, progress

    source = record_source(cfg, r, cid)
    deadline = time.monotonic() + timeout if timeout else None
    st = campaign_state(cfg, r, cid, source)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False) as prog:
        task = prog.add_task(cid, total=st.planned)
        while not st.done and not (deadline and time.monotonic() > deadline):
            time.sleep(1.0)
            st = progress.tick(r, cid) or campaign_state(cfg, r, cid, source)
            failing = durable.state(r) is not None
            prog.update(task, completed=st.recorded, total=st.planned,
                        description=f"{cid} [dim]{st.running} running[/]"
                        + (" [red]ledger writes failing, retrying[/]" if failing else ""))
    return campaign_state(cfg, r, cid, source)


def _watch_fleet(cfg: Config, r: redis.Redis, cid: str | None, as_json: bool) -> None:
    """``status --watch``: the live fleet table (hosts, coordinator, campaigns' progress and failures), redrawn
    every second until the campaign ``cid`` is done (no ``cid``: every campaign in flight, until Ctrl-C);
    with ``as_json`` the same data, one JSON object a line."""
    from rich.live import Live

    from swarmgym.queue import counters, fleetview

    source = record_source(cfg, r, cid) if cid else record_source(cfg, r)

    def view() -> tuple[dict, bool]:
        cids = [cid] if cid else sorted(counters.active(r))
        states = campaign_states(cfg, r, cids, source) if cids else []
        return fleetview.snapshot(cfg, r, states), bool(cid) and all(st.done for st in states)

    try:
        if as_json:
            while True:
                data, done = view()
                click.echo(json.dumps(data, default=str))
                if done:
                    return
                time.sleep(1.0)
        data, done = view()
        with Live(status_view.fleet_view(data), console=Console(), auto_refresh=False) as live:
            while not done:
                time.sleep(1.0)
                data, done = view()
                live.update(status_view.fleet_view(data), refresh=True)
    except KeyboardInterrupt:
        return


def check_keys(cfg: Config, coordinator: bool) -> None:
    """Refuse to start without the key material (one line, exit 2): a host signs every result with
    its key; the coordinator checks them against its keyring (docs/security.md)."""
    if coordinator:
        path = hostkeys.keyring_path(cfg)
        hostkeys.check_outside(path, cfg)
        if not hostkeys.read_keyring(path):
            click.echo(f"warning: {path} trusts no host yet: every result is refused until "
                       "`swarmgym hosts key add NAME FILE`", err=True)
    else:
        path = hostkeys.host_key_path(cfg)
        hostkeys.check_outside(path, cfg)
        hostkeys.read_key_file(path)


@click.command("enqueue")
@setting("campaign.tier", "--tier", type=click.Choice(list(TIERS)))
@setting("campaign.variant", "--variant")
@setting("enqueue.pin_host", "--pin-host")
@setting("swarm.adapter", "--swarm")
@setting("suite", "--suite")
@setting("enqueue.campaign_id", "--campaign-id")
@setting("fleet.wait", "--wait", is_flag=True)
@setting("enqueue.require_workers", "--require-workers", is_flag=True)
@click.pass_context
def enqueue(ctx: click.Context, tier: str, variant: str, pin_host: str | None, swarm: str | None, suite: str | None,
            campaign_id: str | None, wait: bool, require_workers: bool) -> None:
    """Plan a campaign and send it to the fleet; prints the campaign id at once."""
    from swarmgym.queue import dispatch, preflight

    cfg = config_from(ctx)
    r = connect(cfg)
    check_name("variant", variant)
    if pin_host:
        check_name("pin-host", pin_host)
    if wait:
        alive, why = preflight.coordinator_alive(cfg, r)
        if not alive:
            raise QueueError(f"--wait: no coordinator is alive ({why}); nothing sent")
    s = load_suite(suite or cfg.suite, cfg.suites_dir)
    pf = preflight.check(cfg, r, swarm=swarm or cfg.swarm.adapter, variant=variant, pin_host=pin_host,
                         suite=s.name, suite_hash=s.hash, require_workers=require_workers)
    for w in pf.warnings:
        click.echo(f"warning: {w}", err=True)
    with _send_progress() as progress:
        sent = dispatch.enqueue(celery_app(cfg), cfg, tier=tier, variant=variant, swarm=swarm or cfg.swarm.adapter,
                                pin_host=pin_host, campaign_id=campaign_id, suite=suite, progress=progress)
    click.echo(sent.campaign_id)
    if not sent.created:
        click.echo(f"campaign {sent.campaign_id} already enqueued ({sent.jobs} jobs): nothing sent", err=True)
    else:
        click.echo(f"{sent.jobs} job(s) -> queue "
                   f"{'host.' + pin_host if pin_host else 'variant.' + variant}", err=True)
    if wait:
        console = Console(stderr=True)
        _print_summary(console, _watch(cfg, r, sent.campaign_id, console))


@click.command("status")
@click.argument("campaign_id", required=False)
@setting("status.watch", "--watch", is_flag=True)
@setting("status.jobs", "--jobs/--no-jobs")
@setting("status.all", "--all", "all_rows", is_flag=True)
@setting("output.json", "--json", "as_json", is_flag=True)
@click.pass_context
def status(ctx: click.Context, campaign_id: str | None, watch: bool, jobs: bool, all_rows: bool,
           as_json: bool) -> None:
    """A campaign's counters and last changes (or a line per campaign); --all for every job; --watch: the live
    fleet (hosts, coordinator, progress and failures) until the campaign is done (no ID: until Ctrl-C)."""
    from swarmgym.campaigns.plan import list_campaigns
    from swarmgym.campaigns.records import LedgerSource
    from swarmgym.queue import progress

    cfg = config_from(ctx)
    console = Console()
    r: redis.Redis | None
    try:
        r = connect(cfg)
    except QueueError as e:
        Console(stderr=True).print(f"[yellow]{e}; showing this home's ledger only[/]")
        r = None
    if watch:
        if r is None:
            raise QueueError("status --watch: needs the broker (SWARMGYM_QUEUE_BROKER_URL), which did not answer")
        _watch_fleet(cfg, r, campaign_id, as_json)
        return
    if not campaign_id:  # this home's embedded campaigns, and the fleet's (the last 30)
        here = [c for c in list_campaigns(cfg) if r is None or embedded(cfg, c)]
        fleet_ids = progress.campaign_ids(r, fleet := record_source(cfg, r)) if r is not None else []
        ids = sorted(set(here) | set(fleet_ids))[-30:]
        if not ids and not as_json:
            console.print(f"no campaigns under {cfg.runs_dir / 'campaigns'}" + ("" if r is None else
                                                                                  " nor on the coordinator"))
        mine = [c for c in ids if c in here]
        theirs = [c for c in ids if c not in here]
        by_id = {st.campaign_id: st for st in (campaign_states(cfg, r, mine, LedgerSource(cfg)) if mine else [])
                 + (campaign_states(cfg, r, theirs, fleet) if theirs else [])}
        states = [by_id[c] for c in ids]
        if as_json:
            click.echo(json.dumps([status_view.json_state(st) for st in states], default=str))
            return
        for st in states:
            _print_summary(console, st)
        return
    source = record_source(cfg, r, campaign_id)
    st = campaign_state(cfg, r, campaign_id, source)
    if as_json:
        rows = progress.rows(r, source, st.campaign_id) if all_rows else None
        click.echo(json.dumps(status_view.json_state(st, rows), default=str))
        return
    if all_rows:
        console.print(status_view.all_table(st, progress.rows(r, source, st.campaign_id)))
    elif jobs and st.recent:
        console.print(status_view.recent_table(st))
    if jobs and not all_rows and st.running_jobs:
        console.print(status_view.running_table(st))
    problems = status_view.problems_table(st) if jobs else None
    if problems is not None:
        console.print(problems)
    _print_summary(console, st)


@click.command("resume")
@click.argument("campaign_id")
@setting("fleet.wait", "--wait", is_flag=True)
@click.pass_context
def resume(ctx: click.Context, campaign_id: str, wait: bool) -> None:
    """Re-send every job of CAMPAIGN_ID that the coordinator has not recorded (works after a Redis flush)."""
    from swarmgym.queue import dispatch

    cfg = config_from(ctx)
    r = connect(cfg)
    sent = dispatch.resume(celery_app(cfg), cfg, campaign_id, fleet_source(cfg, r))
    click.echo(f"{campaign_id}: re-sent {sent.jobs} job(s)" + ("; finalizing" if not sent.jobs else ""))
    if wait:
        console = Console(stderr=True)
        _print_summary(console, _watch(cfg, r, campaign_id, console))


@click.command("cancel")
@click.argument("campaign_id")
@click.pass_context
def cancel(ctx: click.Context, campaign_id: str) -> None:
    """Revoke a campaign's unstarted jobs and mark it cancelled (running jobs finish and are recorded)."""
    from swarmgym.queue import dispatch

    cfg = config_from(ctx)
    r = connect(cfg)
    out = dispatch.cancel(celery_app(cfg), cfg, campaign_id, fleet_source(cfg, r))
    if out.recorded_by == "broker":
        raise QueueError(f"{campaign_id}: cancelled in the broker only (hosts take none of its jobs; {out.revoked} "
                         f"job(s) without a record revoked), but {out.why}; run `swarmgym cancel {campaign_id}` "
                         "again once it is up, or its reconcile may send the jobs again after a Redis restart")
    click.echo(f"{campaign_id}: cancelled; {out.revoked} job(s) without a record revoked")


@click.command("workers")
@setting("workers.timeout", "--timeout", type=float)
@setting("output.json", "--json", "as_json", is_flag=True)
@click.pass_context
def workers(ctx: click.Context, timeout: float, as_json: bool) -> None:
    """Hosts: online, dead (silent past queue.dead_host_secs) or unresponsive; queues, current job."""
    from swarmgym.queue import views

    cfg = config_from(ctx)
    r = connect(cfg)
    rows = views.workers_state(celery_app(cfg), cfg, r, timeout)
    if as_json:
        _echo_json(rows)
        return
    if not rows:
        click.echo("no workers replied")
        return
    Console(width=max(Console().width, 140)).print(status_view.workers_table(rows))


@click.command("worker")
@setting("worker.variant", "--variant")
@setting("worker.host", "--host")
@setting("worker.concurrency", "--concurrency", type=click.IntRange(1, 64))
@setting("home", "--home", type=click.Path(file_okay=False))
@setting("worker.coordinator", "--coordinator", is_flag=True)
@setting("worker.loglevel", "--loglevel")
@setting("sandbox.backend", "--isolation", type=click.Choice(ISOLATION_CHOICES))
@setting("worker.pool", "--pool", type=click.Choice(["prefork", "solo", "threads"]))
@click.pass_context
def worker(ctx: click.Context, variant: str | None, host: str | None, concurrency: int, home: str | None,
           coordinator: bool, loglevel: str, isolation: str | None, pool: str | None) -> None:
    """Start a Celery worker: `<variant>@<host>` on variant.<v>,host.<host>, or the coordinator."""
    from swarmgym.queue.profiles import resolve_profile
    from swarmgym.workers.launch import coordinator_worker, host_worker, worker_argv, worker_env

    if home and not Path(home).is_dir():
        raise UsageError(f"--home {home}: no such folder (create it first)")
    cfg = config_from(ctx)
    host = check_name("host", host or host_name())
    check_keys(cfg, coordinator)
    if isolation and isolation != "auto":
        resolve(isolation)  # fail now, in one line, not at the first job
    if coordinator:
        w = coordinator_worker(host, pool=pool, threads=cfg.queue.coordinator_threads)
    else:
        prof = resolve_profile(cfg, variant)
        if prof is None:
            raise UsageError("--variant: expected the build this host serves (e.g. mlx or gguf), or --coordinator")
        for k, v in prof.env.items():
            os.environ.setdefault(k, v)
        w = host_worker(prof.variant, host, pool=pool, concurrency=concurrency)
    argv = worker_argv(w, loglevel=loglevel)
    click.echo(f"worker {w.name} on {','.join(w.queues)} (home {cfg.home}, broker {mask_url(cfg.queue.broker_url)})",
               err=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execvpe(argv[0], argv, worker_env(os.environ, home=str(cfg.home), host=host, isolation=isolation))


@click.group("schedule", cls=Group)
def schedule() -> None:
    """Overnight campaigns from config `schedules:` (run by the single `celery beat`)."""


@schedule.command("list")
@setting("output.json", "--json", "as_json", is_flag=True)
@click.pass_context
def schedule_list(ctx: click.Context, as_json: bool) -> None:
    """Configured schedules with their next run."""
    from zoneinfo import ZoneInfo

    from swarmgym.queue.schedules import next_fire, parse_cron

    cfg = config_from(ctx)
    if as_json:
        rows = []
        for i, s in enumerate(cfg.schedules):
            nxt = next_fire(parse_cron(s.cron, s.timezone, where=f"schedules[{i}] ({s.name})"),
                            datetime.now(ZoneInfo(s.timezone)))
            rows.append({**s.model_dump(), "next_run": nxt.isoformat() if nxt else None,
                         "next_run_utc": nxt.astimezone(ZoneInfo("UTC")).isoformat() if nxt else None})
        _echo_json(rows)
        return
    if not cfg.schedules:
        click.echo(f"no schedules in {cfg.home / 'config.yaml'} (key schedules:)")
        return
    t = Table()
    for col in ("name", "cron", "timezone", "tier", "variant", "next run", "next run (UTC)"):
        t.add_column(col)
    for i, s in enumerate(cfg.schedules):
        c = parse_cron(s.cron, s.timezone, where=f"schedules[{i}] ({s.name})")
        nxt = next_fire(c, datetime.now(ZoneInfo(s.timezone)))
        t.add_row(s.name, s.cron, s.timezone, s.tier, s.variant,
                  nxt.strftime("%Y-%m-%d %H:%M %Z") if nxt else "never",
                  nxt.astimezone(ZoneInfo("UTC")).strftime("%Y-%m-%d %H:%M") if nxt else "-")
    Console(width=140).print(t)


COMMANDS = (enqueue, status, resume, cancel, workers, worker, schedule)


def register(cli: click.Group) -> None:
    for command in COMMANDS:
        cli.add_command(command)
