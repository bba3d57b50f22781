"""What produced a record: :class:`Provenance`, as the host ran it."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from swarmgym.models.base import Model

Isolation = Literal["bwrap", "seatbelt", "none"]


class Provenance(Model):
    """What produced a record, as the host ran it (docs/architecture.md section 7).

    Filled on the host that ran the job (never from the enqueuer's view) and copied into every
    ledger record and session.json, so a ledger line alone says which swarm, build, flags, seed,
    isolation and host produced it.
    """

    adapter: str = ""
    """The swarm adapter: sim | goose | command."""
    binary: str | None = None
    """The swarm executable as resolved on the host."""
    binary_version: str | None = None
    """First line of ``<binary> --version``."""
    fleet_hash: str | None = None
    """sim only: hash of the fleet file it read."""
    goose_config_hash: str | None = None
    """goose and sim: hash of the operator's pristine goose config folder each run starts from (a fresh
    copy per job); None when there is none or the swarm keeps no goose config (command)."""
    flags: dict[str, str] = Field(default_factory=dict)
    """``GOOSE_SWARM_*`` as the swarm saw them."""
    knobs: dict[str, Any] = Field(default_factory=dict)
    """Pool and tweaker knobs in effect."""
    seed: int | None = None
    """The seed the swarm ran with (the simulator's draw)."""
    replays_seed: bool = False
    """The swarm replays a seed: the same seed, flags and build give the same run (the simulator does; real
    goose does not).  A repeated run of the same unit is then no new evidence and is counted once."""
    isolation: Isolation = "none"
    """The isolation backend: bwrap | seatbelt | none."""
    swarmgym_version: str = ""
    """The swarmgym version that ran the job."""
    suite_hash: str | None = None
    """Content hash of the suite the host loaded."""
    host: str = ""
    """The host that ran the job."""

    def build(self) -> str | None:
        """The swarm build a run used: the binary's ``--version`` (else its path), plus the simulator's fleet hash."""
        base = self.binary_version or self.binary or None
        if self.fleet_hash:
            fleet = "fleet " + self.fleet_hash.removeprefix("sha256:")[:8]
            return f"{base} · {fleet}" if base else fleet
        return base
