"""The plan lives in Redis as well as in the enqueuer's home, so nothing needs a shared filesystem.

``enqueue`` writes the plan to its own ``runs/campaigns/<cid>.json`` *and* to Redis
(``swarmgym:plan:<cid>``, owner: this module, TTL ``queue.result_expires``).  The coordinator finds a
plan (:func:`find`) in its own home first, then in Redis, and keeps a copy in its home: its home then
survives a Redis flush too, and its copy is the campaign's truth (``cancel`` and ``resume`` change it
through the coordinator, :mod:`swarmgym.campaigns.records`).  A plan found in neither place is one line
naming both.  (This home's plan alone is :func:`swarmgym.campaigns.plan.load_campaign`.)
"""
from __future__ import annotations

import logging

import redis

from swarmgym.campaigns.plan import (
    Campaign,
    campaign_path,
    list_campaigns,
    load_campaign,
    save_campaign,
)
from swarmgym.core.errors import UsageError
from swarmgym.queue import keys
from swarmgym.queue.counters import active

log = logging.getLogger(__name__)


def publish(r: redis.Redis, camp: Campaign, ttl: int) -> None:
    r.set(keys.plan(camp.campaign_id), camp.model_dump_json(), ex=max(1, int(ttl)))


def fetch(r: redis.Redis | None, cid: str) -> Campaign | None:
    if r is None:
        return None
    try:
        raw = r.get(keys.plan(cid))
    except redis.RedisError:
        return None
    if not raw:
        return None
    try:
        return Campaign.model_validate_json(raw)
    except ValueError:
        log.error("%s: not a valid campaign plan in Redis", keys.plan(cid))
        return None


def find(cfg, cid: str, r: redis.Redis | None) -> Campaign:
    """This home's plan, else the one in Redis (then kept in this home)."""
    if campaign_path(cfg, cid).is_file():
        return load_campaign(cfg, cid)
    camp = fetch(r, cid)
    if camp is None:
        raise UsageError(f"campaign {cid!r}: no plan at {campaign_path(cfg, cid)} nor in Redis "
                         f"({keys.plan(cid)}); was it enqueued against this broker?")
    try:
        save_campaign(cfg, camp)
    except OSError as e:
        log.warning("plan %s not kept in %s: %s", cid, cfg.home, e)
    return camp


def keep_copies(cfg, r: redis.Redis) -> int:
    """Keep in this home a copy of every active campaign's plan it lacks (the coordinator, each watchdog
    tick: a campaign enqueued from another machine is then resumed after a Redis restart too)."""
    kept = 0
    for cid in active(r):
        if campaign_path(cfg, cid).is_file():
            continue
        camp = fetch(r, cid)
        if camp is not None:
            try:
                save_campaign(cfg, camp)
                kept += 1
            except OSError as e:
                log.warning("plan %s not kept in %s: %s", cid, cfg.home, e)
    return kept


def list_all(cfg, r: redis.Redis | None) -> list[str]:
    """Campaigns planned in this home, plus the active ones any enqueuer published."""
    ids = set(list_campaigns(cfg))
    if r is not None:
        try:
            ids |= set(active(r))
        except redis.RedisError:
            pass
    return sorted(ids)
