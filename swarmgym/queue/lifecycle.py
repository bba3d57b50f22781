"""What a worker does when it starts and stops, besides consuming tasks.

Host worker (``<variant>@<host>``): registers itself (variant, queues, the hash of each local suite)
in :data:`swarmgym.queue.keys.HOSTS` and beats every ``dead_host_secs / 4`` from its main
process, so ``workers`` can tell an idle host from a dead one.

Coordinator (``coordinator@<host>``): at start, puts back the messages a killed coordinator left
unacknowledged (they would otherwise wait out the 48 h visibility timeout) and sends one reconcile
(a campaign whose finalize died with it is finished now, not at the next beat).  Then a watchdog
thread runs :func:`swarmgym.queue.deadhosts.sweep` every few seconds and sends ``reconcile`` every
``queue.reconcile_secs`` (at most one per period fleet-wide, beat included): no person needed.
"""
from __future__ import annotations

import logging
import os
import threading
import time

import redis
from celery.signals import worker_ready, worker_shutting_down

from swarmgym.core.hosts import host_of
from swarmgym.queue import deadhosts, keys, liveness
from swarmgym.queue.appconfig import app_config
from swarmgym.queue.redis_util import for_config
from swarmgym.queue.routing import COORDINATOR_QUEUE
from swarmgym.suitekit.suite import load_suite

log = logging.getLogger(__name__)
_STOP = threading.Event()
_HOST: list = []  # [redis, host, HostBeat] of a host worker


def sweep_interval(cfg) -> float:
    return max(1.0, min(cfg.queue.dead_host_secs / 4, 15.0))


def local_suite_hashes(cfg) -> dict[str, str]:
    """suite name -> hash of every suite this host can load (a broken suite is left out)."""
    out = {}
    d = cfg.suites_dir
    for p in sorted(d.iterdir()) if d.is_dir() else []:
        if not p.is_dir():
            continue
        try:
            out[p.name] = load_suite(p.name, d).hash
        except Exception:  # not a suite folder, or a broken one: this host cannot run it either
            continue
    return out


_SUITE_HASHES: dict[str, str] = {}


def local_suite_hash(cfg, name: str) -> str | None:
    """This host's hash of suite ``name`` (cached for the life of the process), or None if it has none."""
    if name not in _SUITE_HASHES:
        try:
            _SUITE_HASHES[name] = load_suite(name, cfg.suites_dir).hash
        except Exception:
            return None
    return _SUITE_HASHES[name]


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
    while not _STOP.wait(sweep_interval(cfg)):
        try:
            deadhosts.sweep(app, cfg, r=r)
            send_reconcile(app, cfg, r=r)
        except Exception as e:  # Redis down, broker restarting: the next tick tries again
            log.warning("watchdog: %s", e)


def start_coordinator(app, cfg, started: float) -> None:
    r = for_config(cfg)
    try:
        n = deadhosts.restore_unacked(r, before=started)
        if n:
            log.warning("coordinator: %d message(s) left unacknowledged by a previous coordinator put back", n)
        send_reconcile(app, cfg, force=True)
    except Exception as e:
        log.warning("coordinator start: %s", e)
    threading.Thread(target=_watchdog, args=(app, cfg), name="coordinator-watchdog", daemon=True).start()


def start_beating(cfg, key: str, info: dict) -> None:
    """Register ``key`` (a host name, or ``coordinator@<host>``) and beat for it from this process."""
    r = liveness.private_client(cfg.queue.broker_url)
    try:
        liveness.register_host(r, key, {**info, "pid": os.getpid()})
    except redis.RedisError as e:
        log.warning("%s not registered: %s", key, e)
    _HOST[:] = [r, key, liveness.HostBeat(cfg.queue.broker_url, key, cfg.queue.dead_host_secs / 4).start()]


def start_host(app, cfg, node: str, queues: list[str]) -> None:
    start_beating(cfg, host_of(node), {"node": node, "variant": node.split("@", 1)[0], "queues": queues,
                                       "suites": local_suite_hashes(cfg)})


@worker_ready.connect
def _on_ready(sender=None, **kw) -> None:
    app = sender.app
    cfg = app_config(app)
    node = getattr(sender, "hostname", "") or ""
    try:
        queues = sorted(q.name for q in app.amqp.queues.consume_from.values())
    except Exception:
        queues = []
    if node.startswith("coordinator@"):
        import psutil

        start_beating(cfg, node, {"node": node, "queues": queues})  # `enqueue --wait` asks if it is alive
        start_coordinator(app, cfg, started=psutil.Process().create_time())
    else:
        start_host(app, cfg, node, queues)


@worker_shutting_down.connect
def _on_shutdown(**kw) -> None:
    """A clean stop is not a death: the host leaves the heartbeat table (``workers`` shows it gone)."""
    _STOP.set()
    if _HOST:
        r, host, hb = _HOST
        hb.stop()
        try:

            pipe = r.pipeline(transaction=False)
            pipe.hdel(keys.HOSTBEAT, host)
            pipe.hdel(keys.HOSTS, host)
            pipe.execute()
        except redis.RedisError:
            pass
