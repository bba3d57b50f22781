"""Job leases: ``SET NX EX`` so two hosts never run the same job at once (docs/architecture.md section 9).

The value is ``<host>|<life>|<pid>|<token>``: the host, the life of its worker that took the lease
(:func:`swarmgym.queue.liveness.this_life`: a worker restarted under the same name is a new life), the
process and a token.  A thread renews the expiry while the job runs (every ttl/3, at most every
:data:`RENEW_MAX` seconds); if Redis lost the key (restarted, flushed),
the renewer sets it again — unless the coordinator took the delivery from this host meanwhile (it is
in :data:`~swarmgym.queue.keys.STALE`): then the lease is lost and stays with whoever has it now.  When
the renewer sets a lost lease again it calls ``on_reset`` (the host publishes its running job again).
Release deletes the key only if we still hold it.  Every renewal also beats for the host (the
coordinator takes the job from a host silent past ``queue.dead_host_secs``).  A lease held by an
earlier life of *this* host, or by a dead process of this life, is taken over; one held by another
host means the job is a duplicate delivery.
"""
from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Callable

import psutil
import redis

from swarmgym.queue import keys
from swarmgym.queue.liveness import beat, this_life

log = logging.getLogger(__name__)
RENEW_MAX = 10.0  # seconds between renewals at most: after a Redis restart a running job is seen again this soon

# KEYS: lease, stale deliveries   ARGV: value, ttl, task id
# -> 1 renewed, 2 set again (Redis had lost it), 0 held by someone else, -1 our delivery was taken from us
_RENEW = """
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then return redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if v then return 0 end
if ARGV[3] ~= '' and redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1 then return -1 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 2
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_TAKEOVER = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]); return 1 end
return 0
"""


def holder(r: redis.Redis, job_id: str) -> str | None:
    return r.get(keys.lease(job_id))


def parse(value: str) -> tuple[str, str, int | None]:
    """(host, life, pid) of a lease value (``host|life|pid|token``; an old ``host|pid|token`` has no life)."""
    parts = value.split("|")
    if len(parts) == 3:
        parts.insert(1, "")
    host, life, pid = (parts + ["", "", ""])[:3]
    return host, life, int(pid) if pid.isdigit() else None


_MARK = """
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
elseif not string.find(',' .. cur .. ',', ',' .. ARGV[2] .. ',', 1, true) then
  redis.call('HSET', KEYS[1], ARGV[1], cur .. ',' .. ARGV[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""


def mark_leased(r: redis.Redis, cid: str, job_id: str, host: str, ttl: int) -> None:
    """Note that ``host`` took ``job_id``'s lease (idempotent; several hosts accumulate)."""
    r.eval(_MARK, 1, keys.campaign_leased(cid), job_id, host, max(1, int(ttl)))


def leased_by(r: redis.Redis, cid: str, job_id: str) -> list[str]:
    """The hosts that ever leased ``job_id`` (empty: none did, or Redis lost the mark)."""
    raw = r.hget(keys.campaign_leased(cid), job_id)
    return [h for h in (raw or "").split(",") if h]


class JobLease:
    """Context-free lease object: ``acquire()`` -> bool, ``release()``; renewed by a daemon thread."""

    def __init__(self, r: redis.Redis, job_id: str, host: str, ttl: int = 120, beat_every: float = 30.0, *,
                 life: str | None = None, task_id: str = "", on_reset: Callable[[], None] | None = None):
        self.r, self.job_id, self.host, self.ttl = r, job_id, host, max(2, int(ttl))
        self.beat_every = beat_every
        self.key = keys.lease(job_id)
        self.life = life or this_life()
        self.value = f"{host}|{self.life}|{os.getpid()}|{uuid.uuid4().hex[:12]}"
        self.task_id, self.on_reset = task_id, on_reset
        self.held_by: str | None = None
        self.lost = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _superseded(self, current: str) -> bool:
        """Is ``current`` held by an earlier life of this host, or by a dead process of this life?"""
        host, life, pid = parse(current)
        if host != self.host:
            return False
        if life != self.life:
            return True
        return pid is not None and pid != os.getpid() and not psutil.pid_exists(pid)

    def acquire(self) -> bool:
        self._beat()
        if self.r.set(self.key, self.value, nx=True, ex=self.ttl):
            self._start()
            return True
        current = self.r.get(self.key)
        if current and self._superseded(current):
            if self.r.eval(_TAKEOVER, 1, self.key, current, self.value, self.ttl):
                log.warning("lease %s: taken over from %s (an earlier life of this host, or a dead process)",
                            self.job_id, current)
                self._start()
                return True
        if current is None and self.r.set(self.key, self.value, nx=True, ex=self.ttl):
            self._start()
            return True
        self.held_by = current
        return False

    def _beat(self) -> None:
        """A lease renewal is the host's heartbeat (:mod:`swarmgym.queue.liveness`)."""
        try:
            beat(self.r, self.host)
        except redis.RedisError as e:
            log.warning("heartbeat of %s failed: %s", self.host, e)

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._renew_loop, name=f"lease-{self.job_id}", daemon=True)
        self._thread.start()

    def _renew_loop(self) -> None:
        interval = max(0.5, min(self.ttl / 3, self.beat_every, RENEW_MAX))
        while not self._stop.wait(interval):
            self._beat()
            try:
                got = self.r.eval(_RENEW, 2, self.key, keys.STALE, self.value, self.ttl, self.task_id)
            except redis.RedisError as e:  # broker hiccup: try again next tick
                log.warning("lease %s: renew failed: %s", self.job_id, e)
                continue
            if got in (0, -1) and not self.lost:
                self.lost = True
                log.error("lease %s: lost (%s)", self.job_id, "this delivery was re-sent while this host was silent"
                          if got == -1 else f"now held by {self.r.get(self.key)}")
            elif got == 2 and self.on_reset is not None:
                log.warning("lease %s: Redis had lost it; set again", self.job_id)
                try:
                    self.on_reset()
                except redis.RedisError as e:
                    log.warning("lease %s: running job not published again: %s", self.job_id, e)

    def release(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)
        try:
            self.r.eval(_RELEASE, 1, self.key, self.value)
        except redis.RedisError as e:
            log.warning("lease %s: release failed (expires in %ss): %s", self.job_id, self.ttl, e)
