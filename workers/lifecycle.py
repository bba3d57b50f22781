"""A host worker's life (``<variant>@<host>``), besides running jobs: it begins before the pool starts,
is announced once the worker is ready, and ends cleanly or in a warm shutdown.

- ``worker_init``: a new life (:func:`swarmgym.queue.claim.begin_life`), shared by every pool process, so
  the coordinator can tell a job this life runs from one an earlier life of the same host left behind.
- ``worker_ready``: the host announces itself (variant, queues, the hash of each local suite) and beats
  every ``dead_host_secs / 4`` from its main process, so ``workers`` tells an idle host from a dead one.
- ``worker_shutting_down`` (warm shutdown: SIGTERM from systemd or launchd): the worker drains — the
  swarms its pool processes run are killed (and any they start until the worker is gone) and their jobs
  go back to the queue for another host, not recorded as failures — and withdraws (a clean stop is not
  a death).

The coordinator's own start and stop are :mod:`swarmgym.queue.lifecycle`.
"""
from __future__ import annotations

import logging
import threading
import time

import psutil
from celery.signals import worker_init, worker_ready, worker_shutting_down

from swarmgym.core.hosts import host_of
from swarmgym.queue import claim
from swarmgym.queue.appconfig import app_config
from swarmgym.suitekit.suite import load_suite
from swarmgym.workers.reaper import sweep_descendants

log = logging.getLogger(__name__)
GUARD_MODULE = "swarmgym.isolation.guard"
_LIFE: list[claim.Life] = []  # this process's life, once announced


def is_host(node: str | None) -> bool:
    return bool(node) and not str(node).startswith("coordinator@")


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


@worker_init.connect
def _begin(sender=None, **kw) -> None:
    if is_host(getattr(sender, "hostname", None)):
        claim.begin_life()


@worker_ready.connect
def _on_ready(sender=None, **kw) -> None:
    node = getattr(sender, "hostname", "") or ""
    if not is_host(node):
        return
    app = sender.app
    cfg = app_config(app)
    try:
        queues = sorted(q.name for q in app.amqp.queues.consume_from.values())
    except Exception:
        queues = []
    _LIFE[:] = [claim.announce(cfg, host_of(node), {"node": node, "variant": node.split("@", 1)[0],
                                                    "queues": queues, "suites": local_suite_hashes(cfg)})]


#: seconds between sweeps of the pool's swarms while a warm shutdown drains
SWEEP_EVERY = 0.2


def _is_guard(p: psutil.Process) -> bool:
    try:
        return GUARD_MODULE in " ".join(p.cmdline())
    except psutil.Error:  # gone, or a zombie: nothing to spare
        return False


def sweep_pool(me: psutil.Process) -> int:
    """Kill what each of ``me``'s pool processes runs below it (their orphan guards excepted); a process that
    ends meanwhile is skipped, not an error."""
    n = 0
    for child in me.children():
        try:
            guards = {p.pid for p in child.children() if _is_guard(p)}
        except psutil.Error:  # the pool process just ended
            continue
        n += sweep_descendants(child.pid, guards)
    return n


def _keep_sweeping(me: psutil.Process) -> None:
    """Until this process exits: a swarm a pool process starts after the first sweep (its job was between
    its claim and its box, e.g. probing the swarm's version) is killed too, not waited for."""
    while True:
        time.sleep(SWEEP_EVERY)
        try:
            sweep_pool(me)
        except Exception:  # a pool process that just ended: the next sweep sees the new state
            continue


@worker_shutting_down.connect
def _on_shutdown(sender=None, sig=None, how=None, exitcode=None, **kw) -> None:
    """Warm shutdown: mark this worker draining, kill the swarms its pool processes run (and keep killing any
    they start until the worker is gone), withdraw."""
    node = str(sender) if sender else None
    if not is_host(node):
        return
    try:
        from celery import current_app

        me = psutil.Process()
        claim.drain(app_config(current_app), host_of(node), me.pid)
        threading.Thread(target=_keep_sweeping, args=(me,), name="drain-sweeper", daemon=True).start()
        sweep_pool(me)
    except Exception as e:
        log.warning("shutdown: could not stop running swarms: %s", e)
    if _LIFE:
        claim.withdraw(_LIFE.pop())
