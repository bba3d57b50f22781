"""Fleet commands: ``enqueue``, ``status``, ``resume``, ``cancel``, ``workers``, ``worker``, ``schedule list``.

They talk to Redis/Celery through the one app of :func:`swarmgym.queue.app.make_app`, so the CLI
loads the same broker settings as the workers.  Every option has an env var
(``SWARMGYM_<COMMAND>_<OPTION>``; the group sets ``auto_envvar_prefix``).
"""
from __future__ import annotations

import os
import socket
import sys
import time

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from swarmgym.cli import config_from
from swarmgym.errors import QueueError
from swarmgym.models import TIERS

BADGE = {"pass": "[green]pass[/]", "partial": "[yellow]partial[/]", "fail": "[red]fail[/]", "error": "[magenta]error[/]"}


def _app(cfg):
    from swarmgym.queue.app import make_app

    return make_app(cfg)


def _redis(cfg):
    import redis

    from swarmgym.queue.app import mask_url
    from swarmgym.queue.redis_util import for_config

    r = for_config(cfg)
    try:
        r.ping()
    except redis.RedisError as e:
        raise QueueError(f"broker {mask_url(cfg.queue.broker_url)}: unreachable ({type(e).__name__}); "
                         "is Redis running? (SWARMGYM_BROKER_URL)") from None
    return r


def campaign_state(cfg, r, cid: str) -> dict:
    """Per-job state of a campaign from the plan, the ledger and Redis."""
    from swarmgym.ledger import Ledger
    from swarmgym.queue import dispatch, store

    camp = store.load_campaign(cfg, cid)
    ledger = Ledger(cfg.ledger_dir)
    recs = {x.job_id: x for x in ledger.records(kind="session", campaign_id=cid)}
    states = store.job_states(r, cid) if r is not None else {}
    running = dispatch.running_job_ids(r, [j.job_id for j in camp.jobs if j.job_id not in recs]) if r else set()
    rows = []
    for j in camp.jobs:
        rec = recs.get(j.job_id)
        st = states.get(j.job_id, {})
        if rec is not None:
            state, host, overall = "done", rec.host, rec.overall
        elif j.job_id in running or st.get("state") == "running":
            state, host, overall = "running", st.get("host", ""), ""
        elif st:
            state, host, overall = st.get("state", "queued"), st.get("host", ""), ""
        else:
            state, host, overall = "unknown", "", ""
        rows.append({"job": j, "state": state, "host": host, "overall": overall, "rec": rec})
    finalized = ledger.has_job(f"campaign:{cid}")
    all_done = all(x["state"] == "done" for x in rows)
    status = ("finalized" if finalized else "cancelled" if camp.cancelled
              else "complete" if all_done and camp.mode == "local" else "running")  # bench: no chord body
    return {"campaign": camp, "rows": rows, "status": status, "done": sum(x["state"] == "done" for x in rows),
            "running": sum(x["state"] == "running" for x in rows), "total": len(rows),
            "campaign_record": ledger.find(f"campaign:{cid}")[0] if finalized else None}


def _table(st: dict) -> Table:
    t = Table(title=f"campaign {st['campaign'].campaign_id} — {st['status']}", title_justify="left")
    for col in ("job", "spec", "rep", "state", "host", "overall", "wall s"):
        t.add_column(col)
    for x in st["rows"]:
        j, rec = x["job"], x["rec"]
        t.add_row(j.job_id, j.spec, str(j.rep), x["state"], x["host"] or "-", BADGE.get(x["overall"], x["overall"] or "-"),
                  f"{rec.wall_secs:.1f}" if rec else "-")
    return t


def _summary(st: dict) -> str:
    c = st["campaign"]
    counts: dict[str, int] = {}
    for x in st["rows"]:
        if x["overall"]:
            counts[x["overall"]] = counts.get(x["overall"], 0) + 1
    outcome = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    line = (f"{c.campaign_id}: {c.variant}/{c.tier} {st['status']}; {st['done']}/{st['total']} recorded"
            + (f" ({outcome})" if outcome else "") + f", {st['running']} running")
    rec = st.get("campaign_record")
    if rec is not None:
        findings = rec.data.get("findings", [])
        line += f"; cluster {rec.overall}" + (f", {len(findings)} finding(s)" if findings else "")
    return line


def _watch(cfg, r, cid: str, console: Console, timeout: float | None = None) -> dict:
    deadline = time.monotonic() + timeout if timeout else None
    st = campaign_state(cfg, r, cid)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False) as prog:
        task = prog.add_task(cid, total=st["total"])
        while True:
            st = campaign_state(cfg, r, cid)
            prog.update(task, completed=st["done"], description=f"{cid} [dim]{st['running']} running[/]")
            if st["status"] in ("finalized", "cancelled", "complete") or (deadline and time.monotonic() > deadline):
                break
            time.sleep(1.0)
    return st


def register(cli: click.Group) -> None:
    @cli.command("enqueue")
    @click.option("--tier", type=click.Choice(list(TIERS)), default="smoke", show_default=True,
                  help="smoke 1x1, light 3x1, medium 3x5, high 3x10, extreme 3x10 [env SWARMGYM_ENQUEUE_TIER]")
    @click.option("--variant", default="mlx", show_default=True, help="build under test; jobs go to queue variant.<v> [env SWARMGYM_ENQUEUE_VARIANT]")
    @click.option("--pin-host", default=None, help="run every job on this host (queue host.<name>) [env SWARMGYM_ENQUEUE_PIN_HOST]")
    @click.option("--swarm", default=None, help="adapter on the hosts: goose | sim | command (default: config) [env SWARMGYM_ENQUEUE_SWARM]")
    @click.option("--suite", default=None, help="suite name (default: config suite) [env SWARMGYM_ENQUEUE_SUITE]")
    @click.option("--campaign-id", default=None, help="explicit id; an id already enqueued does nothing [env SWARMGYM_ENQUEUE_CAMPAIGN_ID]")
    @click.option("--wait", is_flag=True, default=False, help="show progress until the campaign is finalized [env SWARMGYM_ENQUEUE_WAIT]")
    @click.pass_context
    def enqueue(ctx, tier, variant, pin_host, swarm, suite, campaign_id, wait):
        """Plan a campaign and send it to the fleet as one chord; prints the campaign id at once."""
        from swarmgym.queue import dispatch

        cfg = config_from(ctx)
        r = _redis(cfg)
        sent = dispatch.enqueue(_app(cfg), cfg, tier=tier, variant=variant, swarm=swarm or cfg.swarm.adapter,
                                pin_host=pin_host, campaign_id=campaign_id, suite=suite)
        click.echo(sent.campaign_id)
        if not sent.created:
            click.echo(f"campaign {sent.campaign_id} already enqueued ({sent.jobs} jobs): nothing sent", err=True)
        else:
            click.echo(f"{sent.jobs} job(s) -> queue "
                       f"{'host.' + pin_host if pin_host else 'variant.' + variant}", err=True)
        if wait:
            console = Console(stderr=True)
            st = _watch(cfg, r, sent.campaign_id, console)
            console.print(_summary(st), soft_wrap=True)

    @cli.command("status")
    @click.argument("campaign_id", required=False)
    @click.option("--watch", is_flag=True, default=False, help="live progress until finalized [env SWARMGYM_STATUS_WATCH]")
    @click.option("--jobs/--no-jobs", default=True, help="per-job table [env SWARMGYM_STATUS_JOBS]")
    @click.pass_context
    def status(ctx, campaign_id, watch, jobs):
        """Per-job state of a campaign (or a line per campaign)."""
        from swarmgym.queue import store

        cfg = config_from(ctx)
        console = Console()
        try:
            r = _redis(cfg)
        except QueueError as e:
            console.print(f"[yellow]{e}; showing the ledger only[/]")
            r = None
        if not campaign_id:
            ids = store.list_campaigns(cfg)
            if not ids:
                console.print(f"no campaigns under {cfg.runs_dir / 'campaigns'}")
            for cid in ids[-30:]:
                console.print(_summary(campaign_state(cfg, r, cid)), soft_wrap=True)
            return
        if watch and r is not None:
            st = _watch(cfg, r, campaign_id, console)
        else:
            st = campaign_state(cfg, r, campaign_id)
        if jobs:
            console.print(_table(st))
        console.print(_summary(st), soft_wrap=True)

    @cli.command("resume")
    @click.argument("campaign_id")
    @click.option("--wait", is_flag=True, default=False, help="show progress until finalized [env SWARMGYM_RESUME_WAIT]")
    @click.pass_context
    def resume(ctx, campaign_id, wait):
        """Re-send every job of CAMPAIGN_ID that has no ledger record (works after a Redis flush)."""
        from swarmgym.queue import dispatch

        cfg = config_from(ctx)
        r = _redis(cfg)
        sent = dispatch.resume(_app(cfg), cfg, campaign_id)
        click.echo(f"{campaign_id}: re-sent {sent.jobs} job(s)" + ("; finalizing" if not sent.jobs else ""))
        if wait:
            console = Console(stderr=True)
            console.print(_summary(_watch(cfg, r, campaign_id, console)), soft_wrap=True)

    @cli.command("cancel")
    @click.argument("campaign_id")
    @click.pass_context
    def cancel(ctx, campaign_id):
        """Revoke a campaign's unstarted jobs and mark it cancelled (running jobs finish and are recorded)."""
        from swarmgym.queue import dispatch

        cfg = config_from(ctx)
        _redis(cfg)
        n = dispatch.cancel(_app(cfg), cfg, campaign_id)
        click.echo(f"{campaign_id}: cancelled; {n} job(s) without a record revoked")

    @cli.command("workers")
    @click.option("--timeout", type=float, default=1.5, show_default=True, help="seconds to wait for replies [env SWARMGYM_WORKERS_TIMEOUT]")
    @click.pass_context
    def workers(ctx, timeout):
        """Hosts online: worker, queues, concurrency, current job."""
        cfg = config_from(ctx)
        _redis(cfg)
        insp = _app(cfg).control.inspect(timeout=timeout)
        queues = insp.active_queues() or {}
        active = insp.active() or {}
        stats = insp.stats() or {}
        if not queues:
            click.echo("no workers replied")
            return
        t = Table()
        for col in ("worker", "host", "queues", "concurrency", "current job"):
            t.add_column(col)
        for node in sorted(queues):
            jobs = []
            for task in active.get(node) or []:
                args = task.get("args") or []
                job = args[0] if args and isinstance(args[0], dict) else {}
                jobs.append(job.get("job_id") or task.get("name", "?"))
            conc = (stats.get(node) or {}).get("pool", {}).get("max-concurrency", "?")
            t.add_row(node, node.split("@", 1)[-1], ",".join(q["name"] for q in queues[node]), str(conc),
                      ", ".join(jobs) or "-")
        Console().print(t)

    @cli.command("worker")
    @click.option("--variant", default=None, help="build this host serves (queue variant.<v>) [env SWARMGYM_WORKER_VARIANT]")
    @click.option("--host", default=None, help="host name (queue host.<name>; default: this machine) [env SWARMGYM_WORKER_HOST]")
    @click.option("--concurrency", type=click.IntRange(1, 64), default=1, show_default=True,
                  help="jobs at once (1 per host: a swarm uses the whole machine) [env SWARMGYM_WORKER_CONCURRENCY]")
    @click.option("--home", type=click.Path(file_okay=False), default=None,
                  help="this worker's home (ledger/, runs/, apps/, config.yaml) [env SWARMGYM_WORKER_HOME]")
    @click.option("--coordinator", is_flag=True, default=False, help="run the coordinator (queue coordinator; the only ledger writer) [env SWARMGYM_WORKER_COORDINATOR]")
    @click.option("--loglevel", default="INFO", show_default=True, help="celery log level [env SWARMGYM_WORKER_LOGLEVEL]")
    @click.option("--isolation", type=click.Choice(["auto", "bwrap", "seatbelt", "none"]), default=None,
                  help="box for the swarm and the checks (default: config sandbox.backend, auto) "
                       "[env SWARMGYM_SANDBOX_BACKEND]")
    @click.pass_context
    def worker(ctx, variant, host, concurrency, home, coordinator, loglevel, isolation):
        """Start a Celery worker: `<variant>@<host>` on variant.<v>,host.<host>, or the coordinator."""
        from swarmgym.errors import UsageError
        from swarmgym.queue.app import mask_url
        from swarmgym.queue.routing import COORDINATOR_QUEUE, check_name, worker_name, worker_queues
        from workers.profiles import resolve_profile

        if home:
            from swarmgym.config import load_config

            cfg = load_config(home)
        else:
            cfg = config_from(ctx)
        host = check_name("host", host or socket.gethostname().split(".")[0])
        box = {}
        if isolation:
            from swarmgym.isolation import resolve

            if isolation != "auto":
                resolve(isolation)  # fail now, in one line, not at the first job
            box = {"SWARMGYM_SANDBOX_BACKEND": isolation}
        if coordinator:
            name, queues, concurrency = f"coordinator@{host}", [COORDINATOR_QUEUE], 1
        else:
            prof = resolve_profile(cfg, variant)
            if prof is None:
                raise UsageError("--variant: expected the build this host serves (e.g. mlx or gguf), or --coordinator")
            variant = prof.variant
            for k, v in prof.env.items():
                os.environ.setdefault(k, v)
            name, queues = worker_name(variant, host), worker_queues(variant, host)
        argv = [sys.executable, "-m", "celery", "-A", "swarmgym.queue.app", "worker", "-n", name, "-Q", ",".join(queues),
                "-c", str(concurrency), "-P", "prefork", "-E", "--loglevel", loglevel, "--without-gossip",
                "--without-mingle"]
        click.echo(f"worker {name} on {','.join(queues)} (home {cfg.home}, broker {mask_url(cfg.queue.broker_url)})",
                   err=True)
        sys.stdout.flush()
        sys.stderr.flush()
        os.execvpe(argv[0], argv, {**os.environ, "SWARMGYM_HOME": str(cfg.home), "SWARMGYM_WORKER_HOST": host, **box})

    @cli.group("schedule")
    def schedule():
        """Overnight campaigns from config `schedules:` (run by the single `celery beat`)."""

    @schedule.command("list")
    @click.pass_context
    def schedule_list(ctx):
        """Configured schedules with their next run."""
        from datetime import datetime
        from zoneinfo import ZoneInfo

        from swarmgym.queue.schedules import next_fire, parse_cron

        cfg = config_from(ctx)
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
