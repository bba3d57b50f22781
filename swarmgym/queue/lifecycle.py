"""What the coordinator does when it starts and stops, besides consuming tasks.

At start (``coordinator@<host>``), it registers and beats like a host (``enqueue --wait`` and ``status``
ask whether it is alive), puts back the messages a killed coordinator left unacknowledged (they would
otherwise wait out the 48 h visibility timeout) and sends one reconcile (a campaign whose finalize died
with it is finished now, not at the next beat).  Then a watchdog thread runs
:func:`swarmgym.queue.deadhosts.sweep` every few seconds — at once when a host announces a new life
(it may have left a job behind) — and sends ``reconcile`` every ``queue.reconcile_secs`` (at most one
per period fleet-wide, beat included), or at once when Redis lost its keys (a restart without
persistence, a flush): no person needed.

A host worker's start and stop are :mod:`swarmgym.workers.lifecycle`.
"""
from __future__ import annotations

import logging
import os
import threading
import time

import psutil
import redis
from celery.signals import worker_ready, worker_shutting_down

from swarmgym.queue import deadhosts, keys, liveness, plans
from swarmgym.queue.appconfig import app_config
from swarmgym.queue.redis_util import for_config
from swarmgym.queue.routing import COORDINATOR_QUEUE

log = logging.getLogger(__name__)
_STOP = threading.Event()
_ME: list = []  # [redis, node, life, HostBeat] of this coordinator
_WAKE_BLOCK = 5  # seconds a watchdog wait blocks on the announcements (below the client's socket timeout)


def sweep_interval(cfg) -> float:
    return max(1.0, min(cfg.queue.dead_host_secs / 4, 15.0))


def send_reconcile(app, cfg, *, force: bool = False, r=None) -> bool:
    """Send ``reconcile`` unless one was sent within ``reconcile_secs`` (beat or another watchdog)."""
    r = r or for_config(cfg)
    ttl = max(1, int(cfg.queue.reconcile_secs * 0.9))
    if not r.set(keys.RECONCILE_DUE, str(time.time()), nx=True, ex=ttl) and not force:
        return False
    app.send_task(keys.RECONCILE, queue=COORDINATOR_QUEUE, ignore_result=True,
                  expires=max(5.0, cfg.queue.reconcile_secs))
    return True


def _watchdog(app, cfg) -> None:
    r = liveness.private_client(cfg.queue.broker_url)  # never the pool processes' client (fork safety)
    every = sweep_interval(cfg)
    while not _STOP.is_set():
        try:
            deadhosts.sweep(app, cfg, r=r)
            plans.keep_copies(cfg, r)  # a plan enqueued elsewhere survives a Redis restart in this home
            if liveness.broker_lost(r):
                log.warning("broker: Redis lost every swarmgym key (restarted without persistence, or flushed): "
                            "reconciling every campaign now")
                if _ME:  # the CLI asks whether a coordinator is alive: say so now, not at the next beat
                    liveness.register_host(r, _ME[1], _ME[3].info, announce=False)
                send_reconcile(app, cfg, force=True, r=r)
            else:
                send_reconcile(app, cfg, r=r)
            woke = r.blpop([keys.ANNOUNCED], timeout=max(1, int(min(every, _WAKE_BLOCK))))
            if woke:
                log.info("watchdog: a host announced a new life (%s): sweeping now", woke[1])
        except Exception as e:  # Redis down, broker restarting: the next tick tries again
            log.warning("watchdog: %s", e)
            _STOP.wait(1.0)


def start_coordinator(app, cfg, node: str, queues: list[str], started: float) -> None:
    r = for_config(cfg)
    info = {"node": node, "queues": queues, "pid": os.getpid(), "life": liveness.this_life()}
    try:  # `enqueue --wait` and `status` ask whether it is alive
        liveness.register_host(r, node, info, announce=False)
    except redis.RedisError as e:
        log.warning("%s not registered: %s", node, e)
    _ME[:] = [r, node, info["life"], liveness.HostBeat(cfg.queue.broker_url, node, cfg.queue.dead_host_secs / 4,
                                                       info).start()]
    try:
        liveness.broker_lost(r)  # (at the first start on this Redis, nothing was lost: reconcile runs anyway)
        n = deadhosts.restore_unacked(r, before=started)
        if n:
            log.warning("coordinator: %d message(s) left unacknowledged by a previous coordinator put back", n)
        send_reconcile(app, cfg, force=True)
    except Exception as e:
        log.warning("coordinator start: %s", e)
    threading.Thread(target=_watchdog, args=(app, cfg), name="coordinator-watchdog", daemon=True).start()


@worker_ready.connect
def _on_ready(sender=None, **kw) -> None:
    node = getattr(sender, "hostname", "") or ""
    if not node.startswith("coordinator@"):
        return
    app = sender.app
    try:
        queues = sorted(q.name for q in app.amqp.queues.consume_from.values())
    except Exception:
        queues = []
    start_coordinator(app, app_config(app), node, queues, started=psutil.Process().create_time())


@worker_shutting_down.connect
def _on_shutdown(**kw) -> None:
    """A clean stop is not a death: the coordinator leaves the heartbeat table, known as stopped."""
    _STOP.set()
    if _ME:
        r, node, life, hb = _ME
        hb.stop()
        try:
            liveness.withdraw(r, node, life)
        except redis.RedisError:
            pass
