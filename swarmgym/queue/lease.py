"""Job leases: ``SET NX EX`` so two hosts never run the same job at once (docs/architecture.md section 9).

The value is ``<host>|<pid>|<token>``.  A thread renews the expiry while the job runs; if Redis
lost the key (flushed), the renewer sets it again.  Release deletes the key only if we still hold
it.  Every renewal also beats for the host (the coordinator takes the job from a host silent past
``queue.dead_host_secs``).  A lease held by a dead process of *this* host (the worker was killed and restarted) is taken
over; one held by another host means the job is a duplicate delivery.
"""
from __future__ import annotations

import logging
import os
import threading
import uuid

import psutil
import redis

from swarmgym.queue import keys
from swarmgym.queue.liveness import beat

log = logging.getLogger(__name__)

_RENEW = """
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then return redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if not v then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]); return 2 end
return 0
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

    def __init__(self, r: redis.Redis, job_id: str, host: str, ttl: int = 120, beat_every: float = 30.0):
        self.r, self.job_id, self.host, self.ttl = r, job_id, host, max(2, int(ttl))
        self.beat_every = beat_every
        self.key = keys.lease(job_id)
        self.value = f"{host}|{os.getpid()}|{uuid.uuid4().hex[:12]}"
        self.held_by: str | None = None
        self.lost = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _stale_local(self, current: str) -> bool:
        host, _, rest = current.partition("|")
        pid = rest.partition("|")[0]
        if host != self.host or not pid.isdigit():
            return False
        return int(pid) != os.getpid() and not psutil.pid_exists(int(pid))

    def acquire(self) -> bool:
        self._beat()
        if self.r.set(self.key, self.value, nx=True, ex=self.ttl):
            self._start()
            return True
        current = self.r.get(self.key)
        if current and self._stale_local(current):
            if self.r.eval(_TAKEOVER, 1, self.key, current, self.value, self.ttl):
                log.warning("lease %s: took over from dead local holder %s", self.job_id, current)
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
        interval = max(0.5, min(self.ttl / 3, self.beat_every))
        while not self._stop.wait(interval):
            self._beat()
            try:
                if self.r.eval(_RENEW, 1, self.key, self.value, self.ttl) == 0:
                    self.lost = True
                    log.error("lease %s: now held by %s", self.job_id, self.r.get(self.key))
            except redis.RedisError as e:  # broker hiccup: try again next tick
                log.warning("lease %s: renew failed: %s", self.job_id, e)

    def release(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)
        try:
            self.r.eval(_RELEASE, 1, self.key, self.value)
        except redis.RedisError as e:
            log.warning("lease %s: release failed (expires in %ss): %s", self.job_id, self.ttl, e)
