"""Simulator fleet files for tests: the shipped fleet with changes (no hangs, other rates, other effects)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

SIM_FLEET = Path(__file__).resolve().parents[2] / "swarmgym" / "sim" / "fleet.yaml"


def write_fleet(path: Path, *, hang: bool = False, faults: dict[str, dict[str, float]] | None = None,
                effects: list[dict[str, Any]] | None = None) -> Path:
    """The shipped fleet at ``path``; without ``hang`` no run hangs (a hung simulated run waits out the
    adapter's start-up grace, a minute of a test's time); ``faults`` overrides a variant's rates;
    ``effects`` replaces the flag effects."""
    fleet = yaml.safe_load(SIM_FLEET.read_text())
    for name, v in fleet["variants"].items():
        if not hang:
            v["faults"]["hang"] = 0.0
        v["faults"].update((faults or {}).get(name, {}))
    if effects is not None:
        fleet["effects"] = effects
    path.write_text(yaml.safe_dump(fleet))
    return path
