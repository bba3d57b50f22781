"""Doctor checks of the fleet: Redis at the configured URL, this host's signing key, the coordinator's
keyring.  ``swarmgym bench`` runs without any of them; ``enqueue`` and the workers need them."""
from __future__ import annotations

from swarmgym.core.errors import SwarmgymError
from swarmgym.doctor.base import Finding, Probe, check
from swarmgym.trust import hostkeys
from swarmgym.trust.secrets import mask_url

FLEET = "the fleet"
PING_TIMEOUT = 3.0


def _ping(url: str) -> str | None:
    """None when Redis at ``url`` answers PING, else why not (one line, no password)."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=PING_TIMEOUT, socket_timeout=PING_TIMEOUT)
        try:
            client.ping()
        finally:
            client.close()
    except (redis.RedisError, OSError, ValueError) as e:
        return f"{type(e).__name__}: {mask_url(str(e)) if '://' in str(e) else e}"
    return None


@check("broker")
def broker(p: Probe) -> Finding:
    q = p.cfg.queue
    urls = [("broker", q.broker_url)] + ([("result backend", q.result_backend)]
                                         if q.result_backend and q.result_backend != q.broker_url else [])
    for what, url in urls:
        why = _ping(url)
        if why is not None:
            return Finding("broker", "fail", f"Redis {what} {mask_url(url)} does not answer ({why})",
                           "start Redis (redis-server deploy/redis.conf) or set SWARMGYM_QUEUE_BROKER_URL to where "
                           "it runs; `swarmgym bench` runs without it", needed_for=FLEET)
    return Finding("broker", "pass", ", ".join(f"Redis {what} {mask_url(url)} answers" for what, url in urls),
                   needed_for=FLEET)


@check("host key")
def host_key(p: Probe) -> Finding:
    path = hostkeys.host_key_path(p.cfg)
    try:
        hostkeys.check_outside(path, p.cfg)
        key = hostkeys.read_key_file(path)
    except SwarmgymError as e:
        return Finding("host key", "fail", str(e), "on each fleet host: swarmgym hosts key new NAME "
                                                   "(then trust it on the coordinator)", needed_for=FLEET)
    return Finding("host key", "pass", f"{path} ({hostkeys.fingerprint(key)}, mode 0600)", needed_for=FLEET)


@check("keyring")
def keyring(p: Probe) -> Finding:
    path = hostkeys.keyring_path(p.cfg)
    fix = "on the coordinator: swarmgym hosts key add NAME FILE (FILE: a copy of the host's key)"
    try:
        hostkeys.check_outside(path, p.cfg)
        ring = hostkeys.read_keyring(path)
    except SwarmgymError as e:
        return Finding("keyring", "fail", str(e), fix, needed_for=FLEET)
    if not ring:
        return Finding("keyring", "fail", f"{path} trusts no host yet: every result would be refused", fix,
                       needed_for=FLEET)
    return Finding("keyring", "pass", f"{path} trusts {len(ring)} host(s): {', '.join(sorted(ring))}",
                   needed_for=FLEET)
