"""The CLI's link to the fleet: the broker, the Celery app and the record source a command reads from.

Shared by the fleet commands (:mod:`swarmgym.cli.fleet_cmd`) and ``compare --fleet``.  Celery, Redis and
the queue modules are imported when a command asks, never when the CLI starts.

:func:`record_source` decides where what was recorded is read: a campaign this home ran in-process
(``bench``: its plan here says ``mode: local``), or any campaign when the broker is unreachable, from
this home's ledger; a fleet campaign from the coordinator, through the broker — never this machine's
files, which the coordinator does not write.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from swarmgym.campaigns.plan import campaign_path, load_campaign
from swarmgym.campaigns.records import LedgerSource, RecordSource
from swarmgym.core.errors import QueueError, SwarmgymError
from swarmgym.trust.secrets import mask_url

if TYPE_CHECKING:
    import redis
    from celery import Celery

    from swarmgym.config import Config


def celery_app(cfg: Config) -> Celery:
    from swarmgym.queue.app import make_app

    return make_app(cfg)


def connect(cfg: Config) -> redis.Redis:
    """The broker's Redis, answering; else one line naming the (masked) URL."""
    import redis

    from swarmgym.queue.redis_util import for_config

    r = for_config(cfg)
    try:
        r.ping()
    except redis.RedisError as e:
        raise QueueError(f"broker {mask_url(cfg.queue.broker_url)}: unreachable ({type(e).__name__}); "
                         "is Redis running? (SWARMGYM_QUEUE_BROKER_URL)") from None
    return r


def embedded(cfg: Config, cid: str) -> bool:
    """Did this home run campaign ``cid`` in-process (``bench``)?"""
    if not campaign_path(cfg, cid).is_file():
        return False
    try:
        return load_campaign(cfg, cid).mode == "local"
    except SwarmgymError:
        return False


def record_source(cfg: Config, r: redis.Redis | None, cid: str | None = None) -> RecordSource:
    """Where ``cid``'s records are read (see the module's doc)."""
    if r is None or (cid is not None and embedded(cfg, cid)):
        return LedgerSource(cfg)
    from swarmgym.queue.asking import BrokerSource

    return BrokerSource(celery_app(cfg), cfg, r)


def fleet_source(cfg: Config, r: redis.Redis) -> RecordSource:
    """The coordinator's records, through the broker (``resume``, ``cancel``, ``compare --fleet``)."""
    from swarmgym.queue.asking import BrokerSource

    return BrokerSource(celery_app(cfg), cfg, r)
