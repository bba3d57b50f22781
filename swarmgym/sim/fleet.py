"""The simulated fleet: devices, variant profiles and effects (fleet.yaml), plus pool state.

``SWARMGYM_SIM_FLEET`` names another fleet file.  Pool changes made with ``swarm pool …``
persist in a JSON file (``SWARMGYM_SIM_POOL``, else ``sim-pool.json`` in goose's config dir) so
that they affect later runs, exactly like goose's own pool knobs.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from swarmgym.collect.goose_paths import goose_dir
from swarmgym.core.atomic import atomic_write_text
from swarmgym.core.errors import UsageError
from swarmgym.core.yamlfile import read_yaml

DEFAULT_FLEET = Path(__file__).with_name("fleet.yaml")
FAULT_KINDS = ("crash", "stub", "liar", "narrator", "hang", "starved", "garbage")
SCALE_KEYS = frozenset(FAULT_KINDS) | {"retry", "minutes"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Device(_Strict):
    id: str
    host: str = "localhost"
    model_id: str | dict[str, str]
    weight: float = Field(1.0, ge=0)
    instances: int = Field(1, ge=1)
    enabled: bool = True
    speed: float = Field(1.0, gt=0)

    def model_for(self, variant: str) -> str:
        if isinstance(self.model_id, str):
            return self.model_id
        return self.model_id.get(variant) or next(iter(self.model_id.values()), self.id)


class Variant(_Strict):
    task_minutes: float = Field(6.0, gt=0)
    retry_rate: float = Field(0.1, ge=0, le=1)
    bad_tool_call_rate: float = Field(0.05, ge=0, le=1)
    faults: dict[str, float] = Field(default_factory=dict)

    @field_validator("faults")
    @classmethod
    def _kinds(cls, v: dict[str, float]) -> dict[str, float]:
        for k, rate in v.items():
            if k not in FAULT_KINDS:
                raise ValueError(f"unknown fault kind {k!r}; expected one of {', '.join(FAULT_KINDS)}")
            if not 0 <= rate <= 1:
                raise ValueError(f"fault rate {k} must be within 0..1, got {rate}")
        return v


class Effect(_Strict):
    when: dict[str, Any]
    scale: dict[str, float]

    @field_validator("scale")
    @classmethod
    def _keys(cls, v: dict[str, float]) -> dict[str, float]:
        bad = sorted(set(v) - SCALE_KEYS)
        if bad:
            raise ValueError(f"unknown scale key {bad[0]!r}; expected a fault kind, retry or minutes")
        return v


class Fleet(_Strict):
    planner_model: str = "planner"
    endpoint: str = "http://127.0.0.1:1234/v1"
    max_turns: int = 40
    max_attempts: int = Field(3, ge=1)
    time_scale: float = Field(0.03, ge=0)
    devices: list[Device]
    variants: dict[str, Variant]
    flag_defaults: dict[str, bool] = Field(default_factory=dict)
    effects: list[Effect] = Field(default_factory=list)

    def device(self, dev_id: str) -> Device:
        for d in self.devices:
            if d.id == dev_id:
                return d
        raise UsageError(f"unknown device {dev_id!r}; known: {', '.join(d.id for d in self.devices)}")

    def variant(self, name: str) -> Variant:
        if name not in self.variants:
            raise UsageError(f"SWARMGYM_SIM_VARIANT={name!r}: unknown variant; known: {', '.join(self.variants)}")
        return self.variants[name]


def fleet_path(env: Mapping[str, str]) -> Path:
    return Path(env["SWARMGYM_SIM_FLEET"]).expanduser() if env.get("SWARMGYM_SIM_FLEET") else DEFAULT_FLEET


def load_fleet(env: Mapping[str, str]) -> Fleet:
    path = fleet_path(env)
    data = read_yaml(path, UsageError)
    try:
        fleet = Fleet.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise UsageError(f"{path}: {loc or 'top level'}: {err['msg'].removeprefix('Value error, ')}") from None
    if not fleet.devices:
        raise UsageError(f"{path}: devices: at least one device is needed")
    ids = [d.id for d in fleet.devices]
    if len(set(ids)) != len(ids):
        raise UsageError(f"{path}: devices: ids must be unique, got {ids}")
    return fleet


# --- where the simulated goose keeps its pool state -----------------------------------------

def pool_path(env: Mapping[str, str]) -> Path:
    """``SWARMGYM_SIM_POOL``, else ``sim-pool.json`` in goose's config dir (where goose keeps its
    pool, so ``GOOSE_PATH_ROOT`` moves it exactly as it moves goose's)."""
    if env.get("SWARMGYM_SIM_POOL"):
        return Path(env["SWARMGYM_SIM_POOL"]).expanduser()
    return goose_dir("config", env) / "sim-pool.json"


def load_pool_state(env: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    path = pool_path(env)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        raise UsageError(f"{path}: pool state is not valid JSON; delete it to reset the pool") from None
    devices = data.get("devices") if isinstance(data, dict) else None
    return {k: v for k, v in (devices or {}).items() if isinstance(v, dict)}


def save_pool_state(env: Mapping[str, str], state: dict[str, dict[str, Any]]) -> Path:
    return atomic_write_text(pool_path(env), json.dumps({"devices": state}, indent=2, sort_keys=True) + "\n")


def effective_devices(fleet: Fleet, env: Mapping[str, str]) -> list[Device]:
    """The fleet's devices with the persisted pool overrides (weight, enabled) applied."""
    state = load_pool_state(env)
    out = []
    for d in fleet.devices:
        over = state.get(d.id, {})
        upd: dict[str, Any] = {k: over[k] for k in ("weight", "enabled") if k in over}
        out.append(d.model_copy(update=upd))
    return out


def set_device(fleet: Fleet, env: Mapping[str, str], dev_id: str, **changes: Any) -> Path:
    fleet.device(dev_id)  # raises UsageError for an unknown device
    state = load_pool_state(env)
    state.setdefault(dev_id, {}).update(changes)
    return save_pool_state(env, state)
