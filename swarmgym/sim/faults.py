"""Seeded fault draws: which failure (if any) a simulated run shows.

Randomness is keyed on ``SWARMGYM_SIM_SEED`` and the prompt only — not on the variant, the
flags or the pool — and each purpose has its own stream.  So flipping a flag changes only the
*thresholds* the same uniform draws are compared against: runs are paired across variants and
flags (common random numbers), and lowering a rate can only remove that fault from a run.
"""
from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from swarmgym.core.errors import UsageError
from swarmgym.sim.fleet import FAULT_KINDS, Fleet
from swarmgym.suitekit.mutants import Mutant
from swarmgym.suitekit.suite import Spec, Suite

CODE_FAULTS = ("crash", "stub", "liar", "narrator")  # priority order: at most one per run
FORCE_KINDS = (*FAULT_KINDS, "reference")
ON = {"1", "true", "on", "yes"}
OFF = {"0", "false", "off", "no", ""}
MAX_RATE = 0.95


def stream(seed: str, prompt: str, purpose: str) -> random.Random:
    """An independent deterministic RNG for one purpose of one run."""
    key = hashlib.sha256(f"{seed}\x00{prompt}\x00{purpose}".encode()).digest()
    return random.Random(int.from_bytes(key[:8], "big"))


def run_key(seed: str, prompt: str) -> str:
    return hashlib.sha256(f"{seed}\x00{prompt}".encode()).hexdigest()[:8]


def flag_on(name: str, env: Mapping[str, str], defaults: Mapping[str, bool]) -> bool:
    raw = env.get(name)
    if raw is None:
        return bool(defaults.get(name, False))
    return raw.strip().lower() in ON


def _holds(key: str, want: Any, env: Mapping[str, str], fleet: Fleet, hard: bool) -> bool:
    if key == "hard":
        return bool(want) == hard
    if isinstance(want, dict):
        raw = env.get(key)
        try:
            value = float(raw) if raw not in (None, "") else None
        except ValueError:
            return False
        if value is None:
            return False
        return ("below" not in want or value < float(want["below"])) and \
               ("above" not in want or value > float(want["above"]))
    want_on = want is True or str(want).lower() in ON
    return flag_on(key, env, fleet.flag_defaults) == want_on


@dataclass
class Rates:
    faults: dict[str, float]
    retry: float
    minutes: float
    applied: list[str] = field(default_factory=list)


def rates_for(fleet: Fleet, variant: str, env: Mapping[str, str], hard: bool = False) -> Rates:
    """The variant's fault rates with every effect whose condition holds multiplied in."""
    prof = fleet.variant(variant)
    faults = {k: float(prof.faults.get(k, 0.0)) for k in FAULT_KINDS}
    retry, minutes = prof.retry_rate, prof.task_minutes
    applied = []
    for eff in fleet.effects:
        if all(_holds(k, v, env, fleet, hard) for k, v in eff.when.items()):
            applied.append(", ".join(f"{k}={v}" for k, v in eff.when.items()))
            for k, mult in eff.scale.items():
                if k == "retry":
                    retry *= mult
                elif k == "minutes":
                    minutes *= mult
                else:
                    faults[k] *= mult
    faults = {k: min(MAX_RATE, v) for k, v in faults.items()}
    return Rates(faults=faults, retry=min(MAX_RATE, retry), minutes=minutes, applied=applied)


def parse_force(raw: str | None) -> set[str] | None:
    """``SWARMGYM_SIM_FORCE=liar,starved`` → those faults exactly; ``reference`` → none."""
    if raw is None or not raw.strip():
        return None
    kinds = {k.strip().lower() for k in raw.split(",") if k.strip()}
    bad = sorted(kinds - set(FORCE_KINDS))
    if bad:
        raise UsageError(f"SWARMGYM_SIM_FORCE={raw!r}: unknown fault {bad[0]!r}; "
                         f"expected any of {', '.join(FORCE_KINDS)}")
    return kinds - {"reference"}


def draw_faults(seed: str, prompt: str, rates: Rates) -> set[str]:
    """The faults of one run: each kind fires when its uniform draw is below its rate."""
    rng = stream(seed, prompt, "faults")
    draws = {k: rng.random() for k in FAULT_KINDS}  # always the same number of draws, same order
    return {k for k in FAULT_KINDS if draws[k] < rates.faults[k]}


def resolve(faults: set[str]) -> tuple[str | None, set[str]]:
    """Split into the one code fault (by priority) and the run-level faults."""
    code = next((k for k in CODE_FAULTS if k in faults), None)
    return code, {k for k in faults if k not in CODE_FAULTS}


def pick_mutant(suite: Suite, spec: Spec, code: str, rng: random.Random, hard: bool = False) -> Mutant | None:
    """The mutant a run with code fault ``code`` builds: one of the spec's mutants with that failure.

    The variant's profile weighs the failure kinds (``draw_faults``); within a kind every mutant is
    equally likely, so every mutant of the suite (bench-v2: one or more per requirement) is reachable.
    For a normal prompt, a mutant that breaks only hard-prompt requirements is left out: its fault
    would be invisible to the checks that prompt is graded by.
    """
    hard_ids = {r.id for r in spec.requirements or [] if r.hard_only}
    cands = [m for m in suite.mutants(spec) if m.failure == code
             and (hard or not m.breaks or not set(m.breaks) <= hard_ids)]
    return cands[int(rng.random() * len(cands))] if cands else None
