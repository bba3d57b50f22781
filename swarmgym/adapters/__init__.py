"""Swarm adapters: how swarmgym starts a coding swarm and gets back a :class:`RunOutcome`.

A registry by name (``goose``, ``sim``, ``command``); :func:`get_adapter` builds one for a
config.  Every adapter runs the swarm as a subprocess in its own process group with a timeout
(see :mod:`swarmgym.adapters.runner`).  New adapters register with :func:`register_adapter`.
"""
from __future__ import annotations

from typing import Callable

from swarmgym.adapters.base import Adapter
from swarmgym.adapters.command import CommandAdapter
from swarmgym.adapters.goose import GooseAdapter
from swarmgym.adapters.sim import SimAdapter, sim_command
from swarmgym.core.errors import UsageError

__all__ = ["Adapter", "ADAPTERS", "get_adapter", "register_adapter", "known_adapters", "sim_command", "preflight"]

ADAPTERS: dict[str, Callable[..., Adapter]] = {}


def register_adapter(name: str, factory: Callable[..., Adapter]) -> None:
    ADAPTERS[name] = factory


def known_adapters() -> list[str]:
    return sorted(ADAPTERS)


def get_adapter(name: str, cfg) -> Adapter:
    """The adapter called ``name`` for ``cfg``; UsageError naming the known ones otherwise."""
    factory = ADAPTERS.get(name)
    if factory is None:
        raise UsageError(f"unknown swarm adapter {name!r}; known: {', '.join(known_adapters())}")
    return factory(cfg)


register_adapter("goose", GooseAdapter)
register_adapter("sim", SimAdapter)
register_adapter("command", CommandAdapter)



def preflight(cfg, name: str, variant: str) -> None:
    """Fail fast, before anything is planned or recorded, if the swarm cannot run at all:
    an unknown adapter, or whatever that adapter's own ``preflight`` finds wrong."""
    get_adapter(name, cfg).preflight(variant)
