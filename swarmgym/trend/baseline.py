"""What a finished campaign is compared with: its series, the campaigns before it, pinned baselines.

A campaign belongs to a **series**: the schedule that started it (``schedule:<name>``), or its arm
(``arm:<arm>``) when no schedule did — and, either way, to one arm (adapter, variant and the flags as the
hosts ran them; :func:`swarmgym.trend.arms.arm`).  Its baseline is, in this order:

1. **pinned**: the campaign ``swarmgym baseline set ARM CAMPAIGN`` named for its arm (``ledger/baselines.json``);
2. **pooled**: the campaigns of its series since the last change — newest first, while comparable (same
   suite hash, adapter and prompt set), at most ``trend.pool`` of them, back to the campaign that began the
   current level: one flagged ``regressed`` or ``improved`` (left out of the pool: it was picked for being
   extreme, and would make the next nights look like a change back), or a ``not comparable`` one (kept: it
   is an ordinary draw of the new level).  After a flagged change the level is a baseline once
   ``trend.settle`` campaigns followed it; the nights before are not tested;
3. **none**: the first campaign of a series, or one whose previous campaign is not comparable.

A :class:`Night` is what one campaign contributes: its pass counts per spec and what identifies it; it is
read back from the campaign's ledger record (``change.counts``), so choosing a baseline parses one small
record per earlier campaign of the variant, never their runs.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from swarmgym.core.atomic import atomic_write_text
from swarmgym.core.errors import UsageError
from swarmgym.ledger import Ledger, campaign_job_id
from swarmgym.ledger.mapping import INFRA
from swarmgym.models import LedgerRecord
from swarmgym.trend.arms import arm_of

PINS_FILE = "baselines.json"
FLAGGED = ("regressed", "improved")                     # verdicts that start a new level, the campaign left out
CHANGED = (*FLAGGED, "not comparable")                  # verdicts that start a new level


@dataclass
class Night:
    """One campaign as a point of its series."""

    campaign_id: str
    created: float
    arm: str
    series: str
    schedule: str | None
    suite_hash: str | None
    adapter: str
    hard: bool
    counts: dict[str, tuple[int, int]]           # spec -> (passes, runs), infra left out
    build: str | None = None
    verdict: str | None = None                    # its own change verdict (None: not assessed)
    outcomes: dict[tuple[str, int], bool] = field(default_factory=dict)  # (spec, seed) -> functional
    seeds: tuple[int, ...] = ()                   # the seeds its runs used
    replays: bool = False                         # its swarm replays a seed (the simulator)

    def same_units(self, other: "Night") -> bool:
        """Both ran the very same units on a swarm that replays them: the later one is no new evidence."""
        return (self.replays and other.replays and bool(self.seeds) and self.seeds == other.seeds
                and self.build == other.build and set(self.counts) == set(other.counts))

    @property
    def passes(self) -> int:
        return sum(p for p, _ in self.counts.values())

    @property
    def runs(self) -> int:
        return sum(n for _, n in self.counts.values())

    def comparable(self, other: "Night") -> str | None:
        """Why ``other`` cannot be this campaign's baseline (None: it can)."""
        if other.adapter != self.adapter:
            return f"adapter differs ({other.adapter or '?'} in {other.campaign_id}, {self.adapter or '?'} here)"
        if other.suite_hash != self.suite_hash:
            return f"suite hash differs ({_short(other.suite_hash)} in {other.campaign_id}, {_short(self.suite_hash)} here)"
        if other.hard != self.hard:
            return f"prompt set differs ({'hard' if other.hard else 'normal'} prompts in {other.campaign_id})"
        if not set(other.counts) & set(self.counts):
            return f"no spec in common with {other.campaign_id}"
        return None


def _short(h: str | None) -> str:
    return (h or "none").removeprefix("sha256:")[:12]


def series_of(schedule: str | None, arm: str) -> str:
    return f"schedule:{schedule}" if schedule else f"arm:{arm}"


def _most_common(values: Iterable[str | None]) -> str | None:
    c = Counter(v for v in values if v)
    return c.most_common(1)[0][0] if c else None


def night_of_runs(campaign_id: str, recs: Sequence[LedgerRecord], *, created: float | None = None,
                  schedule: str | None = None, hard: bool | None = None) -> Night:
    """A campaign from its session records (the campaign being finalized, or a pinned one without a record)."""
    counts: dict[str, tuple[int, int]] = {}
    outcomes: dict[tuple[str, int], bool] = {}
    for r in recs:
        if r.kind != "session" or r.overall == INFRA:
            continue
        p, n = counts.get(r.spec, (0, 0))
        counts[r.spec] = (p + int(r.functional), n + 1)
        if r.provenance.seed is not None:
            outcomes[(r.spec, int(r.provenance.seed))] = bool(r.functional)
    arm = _most_common(arm_of(r) for r in recs) or "?"
    first = min((float(r.data.get("started") or r.ts) for r in recs), default=0.0)
    seeds = tuple(sorted({int(r.provenance.seed) for r in recs if r.provenance.seed is not None}))
    graded = [r for r in recs if r.kind == "session" and r.overall != INFRA]
    replays = bool(graded) and all(r.provenance.replays_seed for r in graded)
    return Night(campaign_id=campaign_id, created=first if created is None else created, arm=arm,
                 series=series_of(schedule, arm), schedule=schedule, seeds=seeds, replays=replays,
                 suite_hash=_most_common(r.suite_hash for r in recs),
                 adapter=_most_common(r.provenance.adapter for r in recs) or "",
                 hard=any(r.tier == "extreme" for r in recs) if hard is None else hard,
                 counts=counts, build=_most_common(r.provenance.build() for r in recs), outcomes=outcomes)


def night_of_record(rec: LedgerRecord) -> Night | None:
    """A campaign from its campaign record (None: finalized before change detection existed)."""
    ch = rec.change
    if ch is None:
        return None
    return Night(campaign_id=rec.campaign_id, created=ch.created, arm=ch.arm, series=ch.series,
                 schedule=ch.schedule, suite_hash=rec.suite_hash, adapter=rec.provenance.adapter or "",
                 hard=ch.hard, counts={s: (int(v[0]), int(v[1])) for s, v in ch.counts.items()},
                 build=ch.build, verdict=ch.verdict, seeds=tuple(ch.seeds), replays=ch.replays)


def with_outcomes(ledger: Ledger, night: Night) -> Night:
    """``night`` with its (spec, seed) outcomes read from its runs (one campaign: for pairing)."""
    if not night.outcomes:
        night.outcomes = night_of_runs(night.campaign_id, ledger.records(kind="session",
                                                                          campaign_id=night.campaign_id)).outcomes
    return night


def assessed(ledger: Ledger, variant: str) -> list[Night]:
    """Every campaign of ``variant`` already compared with its baseline, oldest first."""
    out = [n for n in (night_of_record(r) for r in ledger.records(kind="campaign", variant=variant)) if n]
    return sorted(out, key=lambda n: n.created)


# --- the baseline ---------------------------------------------------------------------------

@dataclass
class Baseline:
    rule: str                       # pinned | pooled | none
    level: list[Night]              # newest first; pinned: the one campaign
    reason: str = ""                # rule none: why nothing is comparable
    previous: Night | None = None   # the series' previous campaign, when comparable
    settling: str = ""              # the level began with a flagged change and is still too short to test against


def choose(ledger: Ledger, night: Night, variant: str, *, pool: int, pins: dict[str, str], settle: int = 1
           ) -> Baseline:
    """The baseline of ``night`` (see the module docstring); ``pool`` caps the pooled campaigns; a level that
    began with a flagged change is a baseline only once it has ``settle`` campaigns (the flagged campaign was
    picked for being extreme: alone, it would make the next night look like a change back)."""
    earlier = [n for n in assessed(ledger, variant)
               if n.series == night.series and n.arm == night.arm and n.campaign_id != night.campaign_id
               and n.created < night.created][::-1]
    previous = earlier[0] if earlier and night.comparable(earlier[0]) is None else None
    pinned = pins.get(night.arm)
    if pinned and pinned != night.campaign_id:
        base = pinned_night(ledger, pinned)
        why = night.comparable(base)
        if why:
            return Baseline("none", [], f"not comparable with the pinned baseline: {why}", previous)
        return Baseline("pinned", [base], previous=previous)
    if not earlier:
        return Baseline("none", [], f"first campaign of {night.series}: nothing to compare with")
    level: list[Night] = []
    for n in earlier:
        why = night.comparable(n)
        if why:
            if not level:
                return Baseline("none", [], why)
            break
        if n.verdict in FLAGGED:  # began this level, but was picked for being extreme: never pooled
            if len(level) < settle:
                return Baseline("pooled", level, previous=previous,
                                settling=f"{len(level)} campaign(s) since {n.campaign_id} was flagged {n.verdict}; "
                                         f"the new level is a baseline from {settle} on (trend.settle)")
            break
        level.append(n)
        if n.verdict in CHANGED or len(level) >= pool:
            break
    return Baseline("pooled", level, previous=previous)


def pinned_night(ledger: Ledger, cid: str) -> Night:
    found = ledger.find(campaign_job_id(cid))
    night = night_of_record(found[0]) if found else None
    if night is not None:
        return night
    recs = ledger.records(kind="session", campaign_id=cid)
    if not recs:
        raise UsageError(f"baseline {cid!r}: no run of that campaign in the ledger")
    return night_of_runs(cid, recs)


# --- pins: ledger/baselines.json --------------------------------------------------------------

def pins_path(ledger_dir: str | Path) -> Path:
    return Path(ledger_dir) / PINS_FILE


def load_pins(ledger_dir: str | Path) -> dict[str, str]:
    """arm -> pinned campaign id; a damaged file is a one-line error naming it."""
    path = pins_path(ledger_dir)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise UsageError(f"{path}: not a baselines file ({e}); fix or delete it") from None
    pins = data.get("pins") if isinstance(data, dict) else None
    if not isinstance(pins, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in pins.items()):
        raise UsageError(f"{path}: expected {{\"pins\": {{ARM: CAMPAIGN_ID}}}}; fix or delete it")
    return dict(pins)


def save_pins(ledger_dir: str | Path, pins: dict[str, str]) -> None:
    atomic_write_text(pins_path(ledger_dir), json.dumps({"pins": dict(sorted(pins.items()))}, indent=1) + "\n")
