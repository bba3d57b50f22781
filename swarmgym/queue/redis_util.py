"""One Redis client per URL for the queue's own keys (their names: :mod:`swarmgym.queue.keys`)."""
from __future__ import annotations

import functools

import redis


@functools.lru_cache(maxsize=8)
def client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, decode_responses=True, socket_timeout=10, socket_connect_timeout=5,
                                health_check_interval=30)


def for_config(cfg) -> redis.Redis:
    return client(cfg.queue.broker_url)
