"""This machine's name, as records, queues and worker names show it: one resolution for every caller."""
from __future__ import annotations

import os
import socket
from typing import Mapping


def host_name(env: Mapping[str, str] | None = None) -> str:
    """``$SWARMGYM_HOST``, else ``$SWARMGYM_WORKER_HOST`` (what ``swarmgym worker --host`` sets for its
    Celery process), else the machine's short host name (``studio.local`` → ``studio``)."""
    env = os.environ if env is None else env
    name = env.get("SWARMGYM_HOST") or env.get("SWARMGYM_WORKER_HOST")
    if name:
        return name
    try:
        return socket.gethostname().split(".")[0] or "localhost"
    except OSError:
        return "localhost"


def host_of(hostname: str | None) -> str:
    """A Celery node name's host: ``mlx@studio-1`` -> ``studio-1``; falls back to :func:`host_name`."""
    if hostname and "@" in hostname:
        return hostname.split("@", 1)[1]
    return host_name()
