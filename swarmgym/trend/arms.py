"""What is compared: an arm — the adapter and variant, plus the swarm flags in effect when any were set.

The one labelling every report, baseline, trend and comparison uses, so an arm is the same string wherever
it is shown or matched.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from swarmgym.models import LedgerRecord


def arm(variant: str | None, flags_json: str | None, adapter: str | None = None) -> str:
    """What is compared: the adapter and variant, plus the swarm flags in effect when any were set.

    ``mlx (sim)`` and ``mlx (sim) [GOOSE_SWARM_GOALS=1]`` are two arms of a head-to-head: flipping
    a flag and re-running the same variant is the flywheel's A/B.  ``mlx (goose)`` is another arm,
    never pooled with a simulated one.  Records older than provenance have no adapter: ``mlx``.
    """
    label = flags_label(flags_json or "{}")
    return (variant or "") + (f" ({adapter})" if adapter else "") + ("" if label == "(none)" else f" [{label}]")


def flags_label(flags_json: str) -> str:
    """``A=1, B=2`` (sorted), ``(none)`` for no flags, the text itself when it is not JSON."""
    try:
        flags = json.loads(flags_json)
    except ValueError:
        return flags_json
    return ", ".join(f"{k}={v}" for k, v in sorted(flags.items())) or "(none)"


def arm_of(rec: LedgerRecord) -> str:
    """A ledger record's arm."""
    return arm(rec.variant, json.dumps(rec.flags or {}, sort_keys=True), rec.provenance.adapter or None)
