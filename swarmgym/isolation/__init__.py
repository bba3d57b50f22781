"""Isolation backends: the box untrusted code (golden checks, the swarm) runs in.

A small registry by name — ``bwrap`` (Linux bubblewrap), ``seatbelt`` (macOS ``sandbox-exec``),
``none`` (no box: process group, scrubbed env and rlimits only) — each building its command line
from one :class:`~swarmgym.isolation.policy.Policy`.  ``auto`` (the default, ``sandbox.backend`` /
``SWARMGYM_SANDBOX_BACKEND`` / ``--isolation``) picks the first backend that works here; when none
does it falls back to ``none`` only for a trusted adapter (:data:`TRUSTED_ADAPTERS`: the simulator,
swarmgym's own reference code), with one warning line, and refuses for any other swarm.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Protocol

from swarmgym.core.errors import IsolationError
from swarmgym.isolation.bwrap import INSTALL_HINT, NETNS_HINT, BwrapBackend
from swarmgym.isolation.policy import TRUSTED_ADAPTERS, Limits, Policy, check_policy, swarm_policy
from swarmgym.isolation.seatbelt import SeatbeltBackend

__all__ = [
    "BACKENDS",
    "CHOICES",
    "Backend",
    "Limits",
    "Policy",
    "TRUSTED_ADAPTERS",
    "check_policy",
    "get_backend",
    "register_backend",
    "resolve",
    "swarm_policy",
]

CHOICES = ("auto", "bwrap", "seatbelt", "none")
AUTO_ORDER = ("bwrap", "seatbelt")


class Backend(Protocol):
    name: str

    def available(self) -> str | None:
        """None if this backend can box code here, else a one-line reason."""

    def wrap(self, argv: list[str], policy: Policy, private_tmp: Path | str | None = None, *,
             options: tuple[str, ...] = ()) -> list[str]:
        """``argv`` run inside the box ``policy`` describes (``options``: backend-specific, bwrap's)."""


class NoneBackend:
    """No box: the caller's process group, scrubbed env and rlimits are all there is."""

    name = "none"

    def available(self) -> str | None:
        return None

    def wrap(self, argv: list[str], policy: Policy, private_tmp: Path | str | None = None, *,
             options: tuple[str, ...] = ()) -> list[str]:
        return list(argv)


BACKENDS: dict[str, Backend] = {}
_WARNED: set[str] = set()


def register_backend(backend: Backend) -> None:
    BACKENDS[backend.name] = backend


def get_backend(name: str) -> Backend:
    if name not in BACKENDS:
        raise IsolationError(f"sandbox.backend: expected one of {', '.join(CHOICES)}, got {name!r}")
    return BACKENDS[name]


def resolve(requested: str, adapter: str | None = None) -> str:
    """The concrete backend (``bwrap`` | ``seatbelt`` | ``none``) for ``requested``; IsolationError
    (one line: how to install bubblewrap, or pass ``--isolation none``) if it cannot box here."""
    if requested == "auto":
        reasons = []
        for name in AUTO_ORDER:
            why = BACKENDS[name].available()
            if why is None:
                return name
            reasons.append(why)
        if adapter in TRUSTED_ADAPTERS:
            if "auto" not in _WARNED:
                _WARNED.add("auto")
                print(f"swarmgym: warning: no isolation backend works here ({reasons[0]}); running the "
                      f"simulator unboxed (--isolation none). To box it: {INSTALL_HINT}", file=sys.stderr)
            return "none"
        raise IsolationError(f"--isolation auto: no isolation backend works here ({reasons[0]}) and the "
                             f"{adapter or 'swarm'} swarm runs model-written code; {_hint(reasons[0])}, "
                             "or pass --isolation none to run it unboxed")
    why = get_backend(requested).available()
    if why is not None:
        hint = _hint(why) if requested == "bwrap" else "use a Mac, or --isolation bwrap on Linux"
        raise IsolationError(f"--isolation {requested}: {why}; {hint}, or pass --isolation none to run unboxed")
    return requested


def _hint(reason: str) -> str:
    return NETNS_HINT if "network namespace" in reason else INSTALL_HINT


register_backend(BwrapBackend())
register_backend(SeatbeltBackend())
register_backend(NoneBackend())


def boxed_config(cfg, adapter: str | None):
    """(``cfg`` with ``sandbox.backend`` resolved to the concrete backend, that backend's name):
    everything a job starts (swarm, checks) then uses the same box, and the record can say which."""
    name = resolve(cfg.sandbox.backend, adapter)
    if name == cfg.sandbox.backend:
        return cfg, name
    return cfg.model_copy(update={"sandbox": cfg.sandbox.model_copy(update={"backend": name})}), name
