"""The Celery app: one settings function for every process (CLI, host workers, coordinator, beat, flower).

docs/architecture.md section 9: JSON only, a visibility timeout longer than any job (set in the broker and result
backend transport options *and* ``visibility_timeout``), prefetch 1 with late acks, task events on for
Flower.  No task keeps a result (``task_ignore_result``; issue #16): nobody reads them, Flower shows
outcomes from events, and a campaign completes by counters, not by a chord in the result backend.

``celery -A swarmgym.queue.app worker`` uses the module-level :data:`app`, built from the config of
``$SWARMGYM_HOME`` (or the cwd).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from celery import Celery
from celery.app.amqp import AMQP
from kombu import Connection, Queue

from swarmgym.config import Config, load_config
from swarmgym.queue.appconfig import attach_config
from swarmgym.queue.routing import COORDINATOR_QUEUE, route_task
from swarmgym.queue.schedules import beat_schedule

TASK_MODULES = ["swarmgym.workers.tasks", "swarmgym.queue.coordinator", "swarmgym.queue.schedules",
                "swarmgym.queue.lifecycle"]


def celery_settings(cfg: Config) -> dict:
    q = cfg.queue
    transport: dict = {"visibility_timeout": q.visibility_timeout}
    if q.visibility_timeout < 3600:  # short timeouts (dev, tests): sweep unacked messages often
        transport.update(unacked_restore_interval=max(1, min(10, q.visibility_timeout // 5)),
                         unacked_restore_throttle=1)
    settings = dict(
        broker_url=q.broker_url,
        result_backend=cfg.result_url,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_accept_content=["json"],
        event_serializer="json",
        broker_transport_options=dict(transport),
        result_backend_transport_options=dict(transport),
        visibility_timeout=q.visibility_timeout,
        worker_prefetch_multiplier=q.prefetch,
        worker_disable_prefetch=q.prefetch == 1,
        task_acks_late=q.acks_late,
        task_reject_on_worker_lost=True,
        task_track_started=True,
        task_ignore_result=True,
        result_expires=q.result_expires,
        result_extended=False,
        task_send_sent_event=True,
        worker_send_task_events=True,
        broker_connection_retry_on_startup=True,
        task_soft_time_limit=q.soft_time_limit or None,  # Celery arms the hard limit only after the soft one
        task_time_limit=q.time_limit,
        task_default_queue=COORDINATOR_QUEUE,
        task_queues=[Queue(COORDINATOR_QUEUE)],
        task_create_missing_queues=True,
        task_routes=(route_task,),
        timezone="UTC",
        enable_utc=True,
        worker_hijack_root_logger=False,
    )
    if q.broker_url.startswith("rediss://"):
        settings["broker_use_ssl"] = {"ssl_cert_reqs": "required"}
    if cfg.result_url.startswith("rediss://"):
        settings["redis_backend_use_ssl"] = {"ssl_cert_reqs": "required"}
    return settings


class ShownConnection(Connection):
    """kombu's broker connection, shown as its URL is: kombu masks a password that is not there
    (``redis://:**@127.0.0.1:6379/0`` in the worker's banner and its "Connected to" line); a URL without
    one is shown without one, a URL with one still as ``:**@``."""

    def as_uri(self, include_password: bool = False, mask: str = "**", *args, **kwargs) -> str:
        uri = super().as_uri(include_password, mask, *args, **kwargs)
        if include_password or self.password:
            return uri
        return uri.replace(f":{mask}@", "@", 1).replace("://@", "://", 1)


class ShownAMQP(AMQP):
    Connection = ShownConnection


def make_app(cfg: Config | None = None, *, main: str = "swarmgym") -> Celery:
    """The Celery app for ``cfg``; every process that talks to the broker builds it here."""
    cfg = cfg or load_config()
    app = Celery(main, include=TASK_MODULES, set_as_current=True, amqp=ShownAMQP)
    app.conf.update(celery_settings(cfg))

    app.conf.beat_schedule = beat_schedule(cfg)
    attach_config(app, cfg)
    return app


def check_home(environ: dict[str, str] | None = None) -> None:
    """``celery -A swarmgym.queue.app`` (worker, beat, flower) with a missing ``$SWARMGYM_HOME``: one
    line and exit 2, not a traceback from deep inside beat's schedule file."""
    home = (os.environ if environ is None else environ).get("SWARMGYM_HOME")
    if home and not Path(home).is_dir():
        print(f"swarmgym: SWARMGYM_HOME {home}: no such folder (create it, or set SWARMGYM_HOME to the "
              "swarmgym home that holds config.yaml)", file=sys.stderr, flush=True)
        raise SystemExit(2)


def __getattr__(name: str):
    """``app`` (what ``celery -A swarmgym.queue.app`` looks up) is built on first use, so importing
    :func:`make_app` never reads the cwd's config."""
    if name in ("app", "celery"):
        global _default
        if _default is None:
            check_home()
            _default = make_app()
        return _default
    raise AttributeError(name)


_default: Celery | None = None
