"""Dead, sleeping and restarted hosts: re-send their running job at once, never wait out the visibility timeout.

:func:`sweep` (run by the coordinator every few seconds, at once when a host announces a new life, and by
every reconcile) looks at the jobs hosts are running (:data:`swarmgym.queue.keys.RUNNING`).  A job is
taken from its host when the host has been silent for ``queue.dead_host_secs`` — no lease renewal, no
heartbeat: killed, powered off, SIGSTOPped, asleep — or when the job belongs to an earlier *life* of a
host that has since announced a new one (SIGKILLed and restarted at once under the same name by systemd
or launchd: its heartbeats never stopped, but the process running the job is gone):

1. its running entry is claimed atomically (one sweeper acts, once);
2. the old delivery is marked stale (``swarmgym:stale`` task_id -> job) and its unacknowledged
   message is removed from the broker's ``unacked`` hash, so it never comes back after the 48 h
   visibility timeout or a worker restart;
3. the lease is freed if the silent host still holds it, and the job goes back to its queue as a new
   delivery; the campaign remembers ``lost (h2 silent 2m10s) -> re-sent`` for ``status``.

A host that wakes up (SIGCONT), or a pool process of an earlier life that outlived its worker, finishes
its run and sends its result; the ledger records it only if the job has no record yet (exactly one record
per job, whichever run ends first), and its lease renewer, finding its delivery stale, never takes the
lease back.
"""
from __future__ import annotations

import json
import logging
import time
from typing import Any

import redis

from swarmgym.core.states import JobState
from swarmgym.queue import counters, keys, liveness, store
from swarmgym.queue.redis_util import for_config
from swarmgym.queue.routing import COORDINATOR_QUEUE, delivery_id, queue_for_job

log = logging.getLogger(__name__)

UNACKED, UNACKED_INDEX = "unacked", "unacked_index"   # kombu's Redis transport (ack emulation)


_CLAIM = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""
_FREE_LEASE = """
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, string.len(ARGV[1])) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_DROP_TAG = """
redis.call('HDEL', KEYS[1], ARGV[1])
return redis.call('ZREM', KEYS[2], ARGV[1])
"""
_RESTORE_TAG = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('RPUSH', ARGV[2], ARGV[3])
return 1
"""


def _unacked(r: redis.Redis) -> list[tuple[str, dict, str]]:
    """(delivery tag, message, routing key) of every delivered but unacknowledged message."""
    if r.type(UNACKED) != "hash":
        return []
    out = []
    for tag, raw in (r.hgetall(UNACKED) or {}).items():
        try:
            msg, _exchange, rk = json.loads(raw)
        except (ValueError, TypeError):
            continue
        if isinstance(msg, dict):
            out.append((tag, msg, rk))
    return out


def drop_unacked(r: redis.Redis, task_ids: set[str]) -> int:
    """Remove the unacknowledged messages of ``task_ids``: a stale delivery must never come back."""
    n = 0
    for tag, msg, _rk in _unacked(r):
        if (msg.get("headers") or {}).get("id") in task_ids:
            n += int(r.eval(_DROP_TAG, 2, UNACKED, UNACKED_INDEX, tag) or 0)
    return n


def restore_unacked(r: redis.Redis, queue: str = COORDINATOR_QUEUE, before: float | None = None) -> int:
    """Put back the coordinator's unacknowledged messages delivered before ``before`` (a coordinator
    killed mid-record left them there; without this they would wait out the 48 h visibility timeout).
    Only one coordinator runs, so at its start none of them can still be in progress."""
    before = before or time.time()
    scores = dict(r.zrange(UNACKED_INDEX, 0, -1, withscores=True) or []) if r.type(UNACKED_INDEX) == "zset" else {}
    n = 0
    for tag, msg, rk in _unacked(r):
        if rk != queue or scores.get(tag, 0) >= before:
            continue
        try:
            msg.setdefault("headers", {})["redelivered"] = True
            msg.setdefault("properties", {}).setdefault("delivery_info", {})["redelivered"] = True
        except AttributeError:
            pass
        n += int(r.eval(_RESTORE_TAG, 2, UNACKED, UNACKED_INDEX, tag, queue, json.dumps(msg)) or 0)
    return n


def job_done(r: redis.Redis, cid: str, jid: str) -> bool:
    """The job's state in Redis is ``done`` (its record is in the ledger)."""
    return counters.job_state(r, cid, jid).get("state") == JobState.DONE


def lost_jobs_of(r: redis.Redis, cid: str) -> dict[str, dict]:
    out = {}
    for jid, raw in (r.hgetall(keys.campaign_lost(cid)) or {}).items():
        try:
            out[jid] = json.loads(raw)
        except ValueError:
            continue
    return out


def _resend(app, r: redis.Redis, cfg, jid: str, entry: dict[str, Any], silent: float, restarted: bool = False) -> str:
    job = entry["job"]
    cid, host, old = entry.get("cid") or job.get("campaign_id"), entry["host"], entry.get("task_id") or ""
    tid = delivery_id(jid, redelivery=True)
    ttl = int(cfg.queue.result_expires)
    pipe = r.pipeline(transaction=False)
    if old:
        pipe.hset(keys.STALE, old, json.dumps({"job_id": jid, "host": host, "ts": round(time.time(), 3)}))
    pipe.expire(keys.STALE, ttl)
    lost = {"host": host, "silent": round(silent, 1), "ts": round(time.time(), 3), "stale_task": old, "task_id": tid,
            "restarted": restarted}
    pipe.hset(keys.campaign_lost(cid), jid, json.dumps(lost))
    pipe.expire(keys.campaign_lost(cid), ttl)
    pipe.execute()
    if old:
        drop_unacked(r, {old})
    r.eval(_FREE_LEASE, 1, keys.lease(jid), f"{host}|")
    store.mark_job(r, cid, jid, "queued", task_id=tid, requeued=True)
    if old:
        r.hincrby(keys.campaign(cid), "stale", 1)  # the campaign's count of stale deliveries
    app.send_task(keys.RUN_JOB, args=[job], queue=queue_for_job(job), task_id=tid, ignore_result=True)
    return tid


def earlier_life(entry: dict[str, Any], lives: dict[str, str]) -> str | None:
    """The life a running entry belongs to, when its host has announced a newer one since (else None)."""
    life, now = entry.get("life"), lives.get(entry.get("host", ""))
    return life if life and now and life != now else None


def sweep(app, cfg, now: float | None = None, r: redis.Redis | None = None) -> list[dict]:
    """Re-send the running job of every host silent for ``queue.dead_host_secs``, and every job an earlier
    life of its host left running; returns what was done."""
    r = r or for_config(cfg)
    now = now or liveness.broker_now(r)  # the clock every beat and running entry was stamped with
    window = cfg.queue.dead_host_secs
    last = liveness.beats(r)
    lives = liveness.lives(r)
    done: list[dict] = []
    for jid, raw in (r.hgetall(keys.RUNNING) or {}).items():
        try:
            entry = json.loads(raw)
        except ValueError:
            r.hdel(keys.RUNNING, jid)
            continue
        host = entry.get("host", "?")
        silent = now - max(last.get(host, 0.0), float(entry.get("since") or 0))
        old_life = earlier_life(entry, lives)
        if silent < window and old_life is None:
            continue
        if not r.eval(_CLAIM, 1, keys.RUNNING, jid, raw):
            continue  # another sweeper took it, or the host finished meanwhile
        cid = entry.get("cid") or ""
        if cid and job_done(r, cid, jid):
            continue
        if cid and (store.redis_status(r, cid).get("status") in ("cancelled", "finalized")):
            continue
        try:
            tid = _resend(app, r, cfg, jid, entry, silent, restarted=old_life is not None)
        except Exception as e:  # the broker hiccupped: put the entry back, the next sweep retries
            log.error("dead host %s: could not re-send %s: %s", host, jid, e)
            r.hset(keys.RUNNING, jid, raw)
            continue
        why = (f"restarted (life {old_life} -> {lives.get(host)})" if old_life is not None
               else f"silent {liveness.fmt_secs(silent)}")
        log.warning("host %s %s: job %s re-sent as %s (delivery %s is stale)", host, why, jid, tid,
                    entry.get("task_id"))
        done.append({"job_id": jid, "host": host, "silent": round(silent, 1), "task_id": tid,
                     "stale_task": entry.get("task_id"), "restarted": old_life is not None})
    return done
