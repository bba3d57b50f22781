"""Who is alive: host heartbeats and the jobs each host is running (issue #12, DESIGN.md section 9).

Redis keys (owner: this module; names: :mod:`swarmgym.queue.keys`):

``swarmgym:hostbeat``   hash host -> last heartbeat (epoch seconds).  Written by every lease renewal of
                        a running job (the lease renewals *are* the heartbeat) and by a small thread in
                        each host worker's main process, so an idle host is seen alive too.
``swarmgym:hosts``      hash host -> JSON ``{node, variant, queues, suites, pid, life, started}``: what the
                        host said about itself when its worker started (``workers`` shows it); a clean
                        stop adds ``stopped`` (the time), so an offline host is still known.
``swarmgym:running``    hash job_id -> JSON ``{cid, host, life, task_id, pid, since, job}``: the job a
                        host runs right now, with its JobSpec so the coordinator can re-send it.
``swarmgym:announced``  list: hosts that just started a new life (the coordinator's watchdog wakes on it).

A host silent for ``queue.dead_host_secs`` is dead (:mod:`swarmgym.queue.deadhosts` acts on it).

**One clock.** Every stamp here (heartbeats, registrations, clean stops, running entries) is the broker's
time (Redis ``TIME``, :func:`broker_now`), and every age is measured against it: a host whose own clock is
minutes ahead is never kept alive by beats "from the future", one minutes behind is never declared dead
while it beats, and a watcher's clock does not matter.  Leases expire on the broker's clock too (``EX``).

**Lives.** Each start of a host worker is a new *life* (:func:`new_life`, made in the worker's main
process before its pool starts, so every pool process shares it).  The running entries and the leases
carry it; a running entry of an earlier life of a host that has since announced a new one was
stranded by a restart (SIGKILL, then systemd or launchd started the worker again under the same name:
its heartbeats never stopped), and the coordinator re-sends it at once.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from typing import Any

import redis

from swarmgym.queue import keys

log = logging.getLogger(__name__)
LIFE_ENV = "SWARMGYM_HOST_LIFE"  # set by the worker's main process for its pool processes (not a setting)
ANNOUNCED_KEEP = 100


def new_life() -> str:
    """A fresh life for this process and every process it starts or forks from now on."""
    life = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    os.environ[LIFE_ENV] = life
    return life


def this_life() -> str:
    """The life of the worker this process belongs to (a process that never started one gets its own)."""
    return os.environ.get(LIFE_ENV) or new_life()


def broker_now(r: redis.Redis) -> float:
    """The broker's clock (Redis ``TIME``): the one clock every liveness stamp and age is read against, so a
    host or a CLI machine whose own clock is off is never judged by it."""
    secs, micros = r.time()
    return float(secs) + float(micros) / 1e6


_STAMP = """
local t = redis.call('TIME')
local now = string.format('%.3f', tonumber(t[1]) + tonumber(t[2]) / 1000000)
redis.call('HSET', KEYS[1], ARGV[1], now)
return now
"""


def beat(r: redis.Redis, host: str, ts: float | None = None) -> None:
    """``host`` is alive now, on the broker's clock (``ts``: an explicit stamp on that clock)."""
    if ts is not None:
        r.hset(keys.HOSTBEAT, host, round(ts, 3))
    else:
        r.eval(_STAMP, 1, keys.HOSTBEAT, host)


def register_host(r: redis.Redis, host: str, info: dict[str, Any], *, announce: bool = True) -> None:
    """``host`` says who it is; with a ``life`` in ``info`` it announces that life (the coordinator
    re-sends at once whatever an earlier life of the host left running)."""
    now = round(broker_now(r), 3)
    pipe = r.pipeline(transaction=False)
    pipe.hset(keys.HOSTS, host, json.dumps({**info, "started": now}))
    pipe.hset(keys.HOSTBEAT, host, now)
    if announce and info.get("life"):
        pipe.lpush(keys.ANNOUNCED, json.dumps({"host": host, "life": info["life"], "ts": now}))
        pipe.ltrim(keys.ANNOUNCED, 0, ANNOUNCED_KEEP - 1)
    pipe.execute()


_WITHDRAW = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
local info = cjson.decode(v)
if info['life'] ~= ARGV[2] then return 0 end
local t = redis.call('TIME')
info['stopped'] = tonumber(string.format('%.3f', tonumber(t[1]) + tonumber(t[2]) / 1000000))
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(info))
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""


def withdraw(r: redis.Redis, host: str, life: str) -> bool:
    """A clean stop of ``life``: the host leaves the heartbeat table and its registration says since when
    it is stopped (unless a newer life of the host registered meanwhile)."""
    return bool(r.eval(_WITHDRAW, 2, keys.HOSTS, keys.HOSTBEAT, host, life))


def lives(r: redis.Redis) -> dict[str, str]:
    """host -> the life it announced last (hosts whose registration Redis lost are left out)."""
    out = {}
    for host, raw in (r.hgetall(keys.HOSTS) or {}).items():
        try:
            life = json.loads(raw).get("life")
        except (ValueError, AttributeError):
            continue
        if life:
            out[host] = str(life)
    return out


def note_not_consuming(r: redis.Redis, host: str, queue: str, why: str) -> None:
    """Remember (for ``workers``) that ``host`` stopped consuming ``queue`` and why."""
    raw = r.hget(keys.HOSTS, host)
    try:
        info = json.loads(raw) if raw else {}
    except ValueError:
        info = {}
    info.setdefault("not_consuming", {})[queue] = why
    r.hset(keys.HOSTS, host, json.dumps(info))


def started(r: redis.Redis, job: dict, host: str, task_id: str, life: str | None = None,
            since: float | None = None) -> None:
    """The job's lease is ours and it runs on ``host`` (since ``since``, default now; the broker's clock)."""
    now = round(broker_now(r), 3)
    entry = {"cid": job.get("campaign_id"), "host": host, "life": life or this_life(), "task_id": task_id,
             "pid": os.getpid(), "since": round(since or now, 3), "job": job}
    pipe = r.pipeline(transaction=False)
    pipe.hset(keys.RUNNING, job["job_id"], json.dumps(entry))
    pipe.hset(keys.HOSTBEAT, host, now)
    pipe.execute()


_FINISH = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v and cjson.decode(v)['task_id'] == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""


def finished(r: redis.Redis, job_id: str, task_id: str) -> None:
    """Forget the running entry, unless another delivery of the job has taken it over since."""
    r.eval(_FINISH, 1, keys.RUNNING, job_id, task_id)


def running(r: redis.Redis) -> dict[str, dict]:
    out = {}
    for jid, raw in (r.hgetall(keys.RUNNING) or {}).items():
        try:
            out[jid] = json.loads(raw)
        except ValueError:
            continue
    return out


def beats(r: redis.Redis) -> dict[str, float]:
    out = {}
    for host, ts in (r.hgetall(keys.HOSTBEAT) or {}).items():
        try:
            out[host] = float(ts)
        except ValueError:
            continue
    return out


def registrations(r: redis.Redis) -> dict[str, dict]:
    """host -> what it said about itself when it started (``stopped``: the time of its clean stop)."""
    info = {}
    for host, raw in (r.hgetall(keys.HOSTS) or {}).items():
        try:
            info[host] = json.loads(raw)
        except ValueError:
            info[host] = {}
    return info


def hosts(r: redis.Redis, dead_secs: float, now: float | None = None) -> dict[str, dict]:
    """host -> its registration plus ``last`` beat, ``silent`` seconds and ``dead``, for every host that
    beats (a host stopped cleanly does not: :func:`registrations` still knows it); ``now`` is the broker's."""
    now = now or broker_now(r)
    info = registrations(r)
    out = {}
    for host, last in beats(r).items():
        silent = max(0.0, now - last)
        out[host] = {**info.get(host, {}), "last": last, "silent": round(silent, 1), "dead": silent >= dead_secs}
    return out


def broker_lost(r: redis.Redis) -> bool:
    """Did Redis lose every key since the coordinator last looked (a restart without persistence, a
    flush)?  :data:`~swarmgym.queue.keys.BROKER_SINCE` is set by the coordinator when it starts and
    whenever it finds it gone; only losing everything removes it.  Called by the coordinator alone."""
    return bool(r.set(keys.BROKER_SINCE, round(broker_now(r), 3), nx=True))


def broker_since(r: redis.Redis) -> float | None:
    """Since when this Redis holds the fleet's keys, as the coordinator saw (None: no coordinator has
    looked since Redis started empty)."""
    raw = r.get(keys.BROKER_SINCE)
    try:
        return float(raw) if raw else None
    except ValueError:
        return None


def fmt_secs(secs: float) -> str:
    """``130`` -> ``2m10s``; ``4`` -> ``4s``; ``3725`` -> ``1h02m``."""
    s = round(secs)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


def private_client(url: str) -> redis.Redis:
    """A client of its own for a thread of a process that forks (a Celery worker's main process): a
    pool process forked while a thread holds a shared client's lock would hang on its first command."""
    return redis.Redis.from_url(url, decode_responses=True, socket_timeout=10, socket_connect_timeout=5)


class HostBeat:
    """A daemon thread beating for ``host`` every ``interval`` seconds (the worker's main process),
    on a Redis client of its own (:func:`private_client`).  With ``info`` (the registration), a beat
    that finds the registration gone (Redis restarted or flushed) registers the host again."""

    def __init__(self, url: str, host: str, interval: float, info: dict[str, Any] | None = None):
        self.r, self.host, self.interval = private_client(url), host, max(0.5, interval)
        self.info = info
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name=f"hostbeat-{host}", daemon=True)

    def start(self) -> HostBeat:
        self.thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                beat(self.r, self.host)
                if self.info is not None and not self.r.hexists(keys.HOSTS, self.host):
                    log.warning("%s: registration gone from Redis (restarted or flushed): registering again", self.host)
                    register_host(self.r, self.host, self.info, announce=False)
            except redis.RedisError as e:
                log.warning("heartbeat of %s failed: %s", self.host, e)
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()
