"""Evidence counted once: a run's evidence unit, duplicates folded, two arms paired on their units.

A run's **unit** is (arm, swarm build, suite hash, spec, seed, prompt set).  A swarm that *replays* a seed —
the simulator, or any swarm whose provenance says so (``Provenance.replays_seed``) — gives the same outcome
every time a unit is run again, so a second run of a unit is no new evidence: wherever runs are pooled
(``bench-report``, ``report --compare``, ``plan``) it is **folded** (the first run recorded stands, the rest
are counted and shown as folded).  A swarm that does not replay its seeds (real goose) gives a fresh draw
each time; its repeated units all count.

Two arms are **paired** on their units' cells — same adapter, suite hash, spec, seed and prompt set —
never on the order the runs were recorded in; runs without a seed are never paired.  Runs that could not
be graded (``error``, ``infra``) are no outcome.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from swarmgym.trend.arms import arm_of

if TYPE_CHECKING:
    from swarmgym.models import LedgerRecord

NOT_AN_OUTCOME = ("error", "infra")   # the harness could not run or grade the job: no outcome, no pair


@dataclass(frozen=True)
class Run:
    """What pooling needs of one run (from a ledger record or an index row)."""

    arm: str
    adapter: str
    build: str | None
    suite_hash: str | None
    spec: str
    seed: int | None
    hard: bool
    replays: bool
    functional: bool
    overall: str
    ts: float = 0.0
    ref: int = -1         # the caller's handle on the run (an index row's position); not part of the unit

    @property
    def cell(self) -> tuple:
        """Where two arms' runs meet: the unit without the arm and the build."""
        return (self.adapter, self.suite_hash, self.spec, self.seed, self.hard)

    @property
    def unit(self) -> tuple:
        return (self.arm, self.build, *self.cell)

    @property
    def outcome(self) -> bool | None:
        return None if self.overall in NOT_AN_OUTCOME else self.functional


def run_of(rec: LedgerRecord) -> Run:
    """A :class:`Run` from a ledger record."""
    prov = rec.provenance
    return Run(arm=arm_of(rec), adapter=prov.adapter or "", build=prov.build(), suite_hash=prov.suite_hash or rec.suite_hash,
               spec=rec.spec, seed=prov.seed, hard=rec.tier == "extreme", replays=prov.replays_seed,
               functional=bool(rec.functional), overall=rec.overall, ts=rec.ts)


@dataclass
class Folded:
    """Runs with duplicate units of replaying swarms folded: what is kept, and what was folded."""

    runs: list[Run]
    dropped: list[Run] = field(default_factory=list)

    @property
    def folded(self) -> dict[str, int]:
        """Folded runs per arm."""
        out: dict[str, int] = {}
        for r in self.dropped:
            out[r.arm] = out.get(r.arm, 0) + 1
        return out


def fold(runs: Iterable[Run]) -> Folded:
    """Keep every run, except a second (third, …) run of a unit on a swarm that replays seeds."""
    seen: set[tuple] = set()
    out = Folded([])
    for r in sorted(runs, key=lambda r: r.ts):
        if r.replays and r.seed is not None:
            if r.unit in seen:
                out.dropped.append(r)
                continue
            seen.add(r.unit)
        out.runs.append(r)
    return out


def pairs(a: Sequence[Run], b: Sequence[Run]) -> list[tuple[bool, bool]]:
    """(A functional, B functional) for every cell both arms ran with an outcome; within a cell the k-th
    run of A meets the k-th run of B (repeats of a swarm that does not replay its seeds)."""
    cells_a: dict[tuple, list[bool]] = {}
    cells_b: dict[tuple, list[bool]] = {}
    for side, cells in ((a, cells_a), (b, cells_b)):
        for r in sorted(side, key=lambda r: r.ts):
            if r.seed is not None and r.outcome is not None:
                cells.setdefault(r.cell, []).append(r.outcome)
    out = []
    for cell in sorted(cells_a.keys() & cells_b.keys(), key=repr):
        out += list(zip(cells_a[cell], cells_b[cell]))
    return out
