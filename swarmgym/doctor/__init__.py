"""``swarmgym doctor``: what a run needs, checked one by one; every miss says how to fix it.

A small registry of checks (:mod:`.base`: :func:`~swarmgym.doctor.base.register_check`), each a function
``(Probe) -> Finding`` that needs none of the others.  :func:`diagnose` runs them all in order; a check
that crashes is a ``fail`` naming the exception, never a traceback.  The checks live by what they look
at: :mod:`.host` (Python, the isolation box, the ledger, free disk), :mod:`.swarm` (the swarm binary and
its version, goose's config and pool endpoint), :mod:`.fleet` (Redis, the host key, the keyring).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from swarmgym.doctor import fleet, host, swarm  # noqa: F401  (each registers its checks, in this order)
from swarmgym.doctor.base import CHECKS, Finding, Probe, register_check

if TYPE_CHECKING:
    from swarmgym.config import Config

__all__ = ["CHECKS", "ORDER", "Finding", "Probe", "all_pass", "diagnose", "register_check"]

#: the order a run needs things in: this machine, the swarm, the fleet, where results go
ORDER = ("python", "isolation", "swarm", "pool", "broker", "host key", "keyring", "ledger", "disk")


def diagnose(cfg: Config, adapter: str | None = None) -> list[Finding]:
    """Every registered check for ``cfg`` and the swarm ``adapter`` (default ``swarm.adapter``), in
    :data:`ORDER` (checks registered by others after it)."""
    probe = Probe(cfg, adapter or cfg.swarm.adapter)
    out = []
    names = sorted(CHECKS, key=lambda n: ORDER.index(n) if n in ORDER else len(ORDER))
    for name in names:
        fn = CHECKS[name]
        try:
            out.append(fn(probe))
        except Exception as e:  # noqa: BLE001 - a crashing check is a miss, shown in one line
            out.append(Finding(name, "fail", f"the check itself failed: {type(e).__name__}: {e}",
                               "report this as a swarmgym bug"))
    return out


def all_pass(findings: list[Finding]) -> bool:
    """True when nothing failed (a skipped check does not apply to this setup)."""
    return all(f.status != "fail" for f in findings)
