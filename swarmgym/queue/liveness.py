"""Who is alive: host heartbeats and the jobs each host is running (issue #12, DESIGN.md section 9).

Redis keys (owner: this module; names: :mod:`swarmgym.queue.keys`):

``swarmgym:hostbeat``   hash host -> last heartbeat (epoch seconds).  Written by every lease renewal of
                        a running job (the lease renewals *are* the heartbeat) and by a small thread in
                        each host worker's main process, so an idle host is seen alive too.
``swarmgym:hosts``      hash host -> JSON ``{node, variant, queues, suites, pid, started}``: what the
                        host said about itself when its worker started (``workers`` shows it).
``swarmgym:running``    hash job_id -> JSON ``{cid, host, task_id, pid, since, job}``: the job a host
                        runs right now, with its JobSpec so the coordinator can re-send it.

A host silent for ``queue.dead_host_secs`` is dead (:mod:`swarmgym.queue.deadhosts` acts on it).
"""
from __future__ import annotations

import json
import logging
import os
import threading
import time
from typing import Any

import redis

from swarmgym.queue import keys

log = logging.getLogger(__name__)


def beat(r: redis.Redis, host: str, ts: float | None = None) -> None:
    r.hset(keys.HOSTBEAT, host, round(ts or time.time(), 3))


def register_host(r: redis.Redis, host: str, info: dict[str, Any]) -> None:
    pipe = r.pipeline(transaction=False)
    pipe.hset(keys.HOSTS, host, json.dumps({**info, "started": round(time.time(), 3)}))
    pipe.hset(keys.HOSTBEAT, host, round(time.time(), 3))
    pipe.execute()


def note_not_consuming(r: redis.Redis, host: str, queue: str, why: str) -> None:
    """Remember (for ``workers``) that ``host`` stopped consuming ``queue`` and why."""
    raw = r.hget(keys.HOSTS, host)
    try:
        info = json.loads(raw) if raw else {}
    except ValueError:
        info = {}
    info.setdefault("not_consuming", {})[queue] = why
    r.hset(keys.HOSTS, host, json.dumps(info))


def started(r: redis.Redis, job: dict, host: str, task_id: str) -> None:
    """The job's lease is ours and it starts now on ``host``."""
    entry = {"cid": job.get("campaign_id"), "host": host, "task_id": task_id, "pid": os.getpid(),
             "since": round(time.time(), 3), "job": job}
    pipe = r.pipeline(transaction=False)
    pipe.hset(keys.RUNNING, job["job_id"], json.dumps(entry))
    pipe.hset(keys.HOSTBEAT, host, round(time.time(), 3))
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


def hosts(r: redis.Redis, dead_secs: float, now: float | None = None) -> dict[str, dict]:
    """host -> its registration plus ``last`` beat, ``silent`` seconds and ``dead``."""
    now = now or time.time()
    info = {}
    for host, raw in (r.hgetall(keys.HOSTS) or {}).items():
        try:
            info[host] = json.loads(raw)
        except ValueError:
            info[host] = {}
    out = {}
    for host, last in beats(r).items():
        silent = max(0.0, now - last)
        out[host] = {**info.get(host, {}), "last": last, "silent": round(silent, 1), "dead": silent >= dead_secs}
    return out


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
    on a Redis client of its own (:func:`private_client`)."""

    def __init__(self, url: str, host: str, interval: float):
        self.r, self.host, self.interval = private_client(url), host, max(0.5, interval)
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name=f"hostbeat-{host}", daemon=True)

    def start(self) -> HostBeat:
        self.thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                beat(self.r, self.host)
            except redis.RedisError as e:
                log.warning("heartbeat of %s failed: %s", self.host, e)
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()
