"""What produced a record, computed on the host that ran it (DESIGN.md section 7).

:func:`swarm_provenance` fills a :class:`~swarmgym.models.Provenance` from the adapter and the
environment the swarm process actually gets on this host — never from the enqueuer's view — so a
flag set only in a host worker's environment is recorded.  ``<binary> --version`` is run once per
binary path and modification time (a rebuilt binary is asked again).
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import threading
from pathlib import Path
from typing import Any, Mapping

from swarmgym import __version__
from swarmgym.core.errors import SwarmgymError
from swarmgym.core.flags import env_knobs, swarm_flags
from swarmgym.core.hosts import host_name
from swarmgym.models import PoolDevice, Provenance

VERSION_TIMEOUT = 15.0

_versions: dict[tuple[tuple[str, ...], float], str | None] = {}
_lock = threading.Lock()


def binary_version(argv: list[str]) -> str | None:
    """First line of ``<argv> --version`` (stdout, else stderr); None if it does not answer."""
    if not argv:
        return None
    try:
        mtime = os.stat(argv[0]).st_mtime
    except OSError:
        return None
    key = (tuple(argv), mtime)
    with _lock:
        if key in _versions:
            return _versions[key]
    try:
        r = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT,
                           stdin=subprocess.DEVNULL, start_new_session=True)
        lines = (r.stdout.strip() or r.stderr.strip()).splitlines() if r.returncode == 0 else []
        version = lines[0].strip()[:200] if lines else None
    except (OSError, subprocess.TimeoutExpired):
        version = None
    with _lock:
        _versions[key] = version
    return version


def file_hash(path: str | Path | None) -> str | None:
    if not path:
        return None
    try:
        return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    except OSError:
        return None


def swarm_provenance(adapter: Any, name: str, env: Mapping[str, str] | None, *, seed: int | None,
                     suite_hash: str | None, host: str) -> Provenance:
    """Provenance of a run of ``adapter`` (registered as ``name``) with the caller's ``env`` layer.

    ``adapter.env(env)`` is the environment the swarm process gets; flags and knobs come from it.
    A binary that cannot be resolved leaves ``binary`` empty (the run itself reports why).
    """
    full_env: Mapping[str, str] = adapter.env(env) if hasattr(adapter, "env") else dict(env or {})
    binary: list[str] = []
    try:
        binary = list(adapter.binary()) if hasattr(adapter, "binary") else []
    except SwarmgymError:
        binary = []
    fleet = adapter.fleet_file(full_env) if hasattr(adapter, "fleet_file") else None
    goose_config = adapter.config_hash(full_env) if hasattr(adapter, "config_hash") else None
    return Provenance(adapter=name, binary=" ".join(binary) or None, binary_version=binary_version(binary),
                      fleet_hash=file_hash(fleet), goose_config_hash=goose_config, flags=swarm_flags(full_env), knobs=env_knobs(full_env),
                      seed=seed, replays_seed=bool(getattr(adapter, "replays_seed", False)),
                      swarmgym_version=__version__, suite_hash=suite_hash, host=host)


def with_pool(prov: Provenance, pool: list[PoolDevice]) -> Provenance:
    """``prov`` plus the pool the run read (device -> weight, enabled) among its knobs."""
    if not pool:
        return prov
    knobs = {**prov.knobs, "pool": {d.id: {"weight": d.weight, "enabled": d.enabled} for d in pool}}
    return prov.model_copy(update={"knobs": knobs})


def campaign_provenance(camp: Any) -> Provenance:
    """A campaign record's provenance: the plan's adapter, flags and first seed; the writer's host."""
    return Provenance(adapter=camp.swarm, flags=swarm_flags(camp.flags), knobs=env_knobs(camp.flags),
                      seed=getattr(camp, "seed", None), swarmgym_version=__version__, suite_hash=camp.suite_hash,
                      host=host_name())
