"""goose's feature flags and env knobs: which environment variables say how a swarm ran.

One list, used wherever a flag is planned (campaigns), recorded (provenance, the ledger's ``flags``),
checked (the coordinator's acceptance) or compared (arms).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from swarmgym.models import Provenance

FLAG_PREFIXES = ("GOOSE_SWARM_",)
ENV_KNOBS = ("GOOSE_LOCAL_CONTEXT_CAP", "GOOSE_MAX_BACKGROUND_TASKS")


def swarm_flags(env: Mapping[str, str]) -> dict[str, str]:
    """goose's feature flags (``GOOSE_SWARM_*``) set in ``env``."""
    return {k: str(v) for k, v in sorted(env.items()) if k.startswith(FLAG_PREFIXES)}


def env_knobs(env: Mapping[str, str]) -> dict[str, str]:
    """goose's env knobs (context cap, background tasks) set in ``env``."""
    return {k: str(env[k]) for k in ENV_KNOBS if k in env}


def record_flags(prov: Provenance) -> dict[str, str]:
    """The flags and env knobs the swarm ran with (what a record's ``flags`` and its arm show)."""
    return {**prov.flags, **{k: str(v) for k, v in prov.knobs.items() if k in ENV_KNOBS}}
