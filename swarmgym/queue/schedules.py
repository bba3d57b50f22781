"""Overnight campaigns: ``cfg.schedules`` -> celery beat entries, one beat, no late starts.

Each schedule (name, 5-field cron, tier, variant, timezone) becomes a beat entry with a tz-aware
crontab that sends ``scheduled_campaign(name)``.  The task finds the cron window it belongs to
(the latest fire time <= now in the schedule's zone); if that window is older than
``cfg.queue.schedule_grace`` (beat was down, the queue was backed up) it is skipped and logged,
never run hours late.  The campaign id is ``sched-<name>-<YYYYmmddHHMM>`` of the window, and
enqueue with an existing id does nothing, so a window runs at most once.

Exactly one beat: :func:`hold_beat_lock` (connected to ``beat_init``) takes a Redis lock renewed
while beat lives; a second beat finds it held and exits.  A clean stop releases it (a restart within
the lock's TTL is not refused).
"""
from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import uuid
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from celery import shared_task
from celery.schedules import crontab
from celery.signals import beat_init

from swarmgym.core.errors import ConfigError
from swarmgym.core.hosts import host_name
from swarmgym.queue import dispatch, keys
from swarmgym.queue.appconfig import app_config
from swarmgym.queue.redis_util import for_config

log = logging.getLogger(__name__)


class TzNow:
    """Picklable ``nowfun`` for crontab (beat persists its schedule with pickle)."""

    def __init__(self, tz: str):
        self.tz = tz

    def __call__(self) -> datetime:
        return datetime.now(ZoneInfo(self.tz))


def parse_cron(expr: str, tz: str = "UTC", *, where: str = "schedules") -> crontab:
    fields = expr.split()
    if len(fields) != 5:
        raise ConfigError(f"{where}: cron {expr!r}: expected 5 fields (minute hour day-of-month month day-of-week)")
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(f"{where}: timezone {tz!r}: expected an IANA zone such as Europe/Paris") from None
    minute, hour, dom, month, dow = fields
    try:
        return crontab(minute=minute, hour=hour, day_of_month=dom, month_of_year=month, day_of_week=dow,
                       nowfun=TzNow(tz))
    except (ValueError, TypeError) as e:
        raise ConfigError(f"{where}: cron {expr!r}: {e}") from None


def _matches_day(c: crontab, d: datetime) -> bool:
    return (d.month in c.month_of_year and d.day in c.day_of_month
            and (d.isoweekday() % 7) in c.day_of_week)


def prev_fire(c: crontab, now: datetime) -> datetime | None:
    """Latest fire time <= ``now`` (aware, in now's zone), looking back at most 400 days."""
    now = now.replace(second=0, microsecond=0)
    for back in range(0, 401):
        day = (now - timedelta(days=back))
        if not _matches_day(c, day):
            continue
        for h in sorted(c.hour, reverse=True):
            for m in sorted(c.minute, reverse=True):
                cand = day.replace(hour=h, minute=m)
                if cand <= now:
                    return _normalize(cand)
    return None


def next_fire(c: crontab, now: datetime) -> datetime | None:
    """Earliest fire time > ``now``, looking ahead at most 400 days."""
    base = now.replace(second=0, microsecond=0)
    for fwd in range(0, 401):
        day = base + timedelta(days=fwd)
        if not _matches_day(c, day):
            continue
        for h in sorted(c.hour):
            for m in sorted(c.minute):
                cand = day.replace(hour=h, minute=m)
                if cand > now:
                    return _normalize(cand)
    return None


def _normalize(dt: datetime) -> datetime:
    """Round-trip through UTC so DST gaps/folds give a real instant in the zone."""
    return dt.astimezone(ZoneInfo("UTC")).astimezone(dt.tzinfo)


def window_id(name: str, window: datetime) -> str:
    return f"sched-{name}-{window.strftime('%Y%m%d%H%M')}"


def beat_schedule(cfg) -> dict:
    out = {"swarmgym-reconcile": {"task": keys.RECONCILE, "schedule": cfg.queue.reconcile_secs,
                                  "options": {"queue": "coordinator", "expires": cfg.queue.reconcile_secs}}}
    for i, s in enumerate(cfg.schedules):
        out[f"schedule-{s.name}"] = {
            "task": keys.SCHEDULED_CAMPAIGN, "args": [s.name],
            "schedule": parse_cron(s.cron, s.timezone, where=f"schedules[{i}] ({s.name})"),
            "options": {"queue": "coordinator", "expires": cfg.queue.schedule_grace}}
    return out


def decide(cfg, name: str, now: datetime | None = None) -> tuple[str | None, str]:
    """(campaign id to enqueue or None, reason) for schedule ``name`` at ``now``."""
    sched = next((s for s in cfg.schedules if s.name == name), None)
    if sched is None:
        return None, f"no schedule named {name!r} in config"
    c = parse_cron(sched.cron, sched.timezone)
    now = (now or datetime.now(ZoneInfo("UTC"))).astimezone(ZoneInfo(sched.timezone))
    window = prev_fire(c, now)
    if window is None:
        return None, "no cron window in the last 400 days"
    late = (now - window).total_seconds()
    if late > cfg.queue.schedule_grace:
        return None, (f"missed window {window.isoformat()} ({late / 60:.0f} min ago > grace "
                      f"{cfg.queue.schedule_grace / 60:.0f} min): skipped")
    return window_id(name, window), f"window {window.isoformat()}"


@shared_task(name=keys.SCHEDULED_CAMPAIGN, bind=True)
def scheduled_campaign(self, name: str) -> dict:
    cfg = app_config(self.app)
    cid, reason = decide(cfg, name)
    if cid is None:
        log.warning("schedule %s: %s", name, reason)
        return {"schedule": name, "skipped": reason}
    sched = next(s for s in cfg.schedules if s.name == name)
    sent = dispatch.enqueue(self.app, cfg, tier=sched.tier, variant=sched.variant, campaign_id=cid,
                            swarm=cfg.swarm.adapter, schedule=name)
    log.info("schedule %s: %s %s", name, cid, "enqueued" if sent.created else "already enqueued")
    return {"schedule": name, "campaign_id": cid, "created": sent.created, "jobs": sent.jobs}


# --- exactly one beat -----------------------------------------------------------------------

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 0
"""


def try_beat_lock(r, ttl: int = 30) -> tuple[bool, str]:
    """(acquired, value or current holder)."""
    value = f"{host_name()}|{os.getpid()}|{uuid.uuid4().hex[:8]}"
    if r.set(keys.BEAT_LOCK, value, nx=True, ex=ttl):
        return True, value
    return False, r.get(keys.BEAT_LOCK) or "?"


def _renew_forever(r, value: str, ttl: int) -> None:
    while True:
        time.sleep(ttl / 3)
        try:
            if not r.eval(_RENEW, 1, keys.BEAT_LOCK, value, ttl):
                if not r.set(keys.BEAT_LOCK, value, nx=True, ex=ttl):  # lost (flushed and retaken?)
                    log.critical("beat lock lost to %s; stopping this beat", r.get(keys.BEAT_LOCK))
                    os._exit(3)
        except Exception as e:
            log.warning("beat lock renew failed: %s", e)


@beat_init.connect
def hold_beat_lock(sender=None, **kw):
    app = getattr(sender, "app", None)
    if app is None:
        from celery import current_app as app
    r = for_config(app_config(app))
    ok, value = try_beat_lock(r)
    if not ok:
        log.critical("another celery beat holds %s (%s); exactly one beat may run: exiting", keys.BEAT_LOCK, value)
        print(f"swarmgym: another beat is running ({value}); exactly one beat may run", flush=True)
        os._exit(3)
    threading.Thread(target=_renew_forever, args=(r, value, 30), daemon=True, name="beat-lock").start()
    atexit.register(release_beat_lock, r, value)


_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def release_beat_lock(r, value: str) -> bool:
    """A clean stop (SIGTERM, Ctrl-C, honcho restart) frees the lock at once: the next beat may start."""
    try:
        return bool(r.eval(_RELEASE, 1, keys.BEAT_LOCK, value))
    except Exception as e:  # Redis gone: the lock expires on its own within its TTL
        log.warning("beat lock not released: %s", e)
        return False
