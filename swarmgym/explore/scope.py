"""The tweaker's hard scope guard: only swarm knobs, never core.

Allowed keys: ``pool.<device>.weight`` (an integer ≥ 1: goose's cap on tasks in flight on that
device; 3.0 is taken as 3, 2.5 or 0 is rejected), ``pool.<device>.enabled`` (bool),
``planner_model`` (a model id), ``worker_max_turns`` and ``max_attempts`` (positive ints),
``env.GOOSE_LOCAL_CONTEXT_CAP`` and ``env.GOOSE_MAX_BACKGROUND_TASKS`` (positive ints).
Anything else is rejected, and the rejection is kept as data.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

ENV_KNOBS = ("env.GOOSE_LOCAL_CONTEXT_CAP", "env.GOOSE_MAX_BACKGROUND_TASKS")
MANUAL_KNOBS = ("planner_model", "worker_max_turns", "max_attempts")
POOL_FIELDS = ("weight", "enabled")
DEVICE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,63}$")
MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,199}$")
MAX_INT = 10_000_000


@dataclass(frozen=True)
class Decision:
    key: str
    value: Any
    allowed: bool
    reason: str = ""
    how: str = ""  # pool | env | manual


def _pos_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and 0 < value <= MAX_INT:
        return value
    return None


def _weight(value: Any) -> int | None:
    """A pool weight as goose takes it (u32 >= 1); an integral float such as 3.0 counts as 3."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    n = _pos_int(value)
    return n if n is not None and n <= 2**32 - 1 else None


def guard(key: Any, value: Any) -> Decision:
    """Allow or reject one knob change; allowed values come back normalised."""
    if not isinstance(key, str):
        return Decision(str(key), value, False, "knob name must be a string")
    if key.startswith("pool."):
        dev, _, field = key[5:].rpartition(".")
        if field not in POOL_FIELDS or not DEVICE.match(dev):
            return Decision(key, value, False, "pool knobs are pool.<device>.weight or pool.<device>.enabled")
        if field == "weight":
            n = _weight(value)
            return (Decision(key, n, True, how="pool") if n is not None else
                    Decision(key, value, False, f"{key} must be an integer >= 1 (goose's weight is the most tasks "
                                                f"in flight on the device), got {value!r}"))
        return (Decision(key, value, True, how="pool") if isinstance(value, bool) else
                Decision(key, value, False, f"{key} must be true or false"))
    if key in ENV_KNOBS:
        n = _pos_int(value)
        return Decision(key, n, True, how="env") if n else Decision(key, value, False, f"{key} must be a positive integer")
    if key == "planner_model":
        ok = isinstance(value, str) and bool(MODEL_ID.match(value))
        return Decision(key, value, True, how="manual") if ok else Decision(key, value, False, "planner_model must be a model id")
    if key in MANUAL_KNOBS:
        n = _pos_int(value)
        return Decision(key, n, True, how="manual") if n else Decision(key, value, False, f"{key} must be a positive integer")
    return Decision(key, value, False, "outside the tweaker's scope (allowed: pool.*, planner_model, worker_max_turns, "
                                       "max_attempts, env.GOOSE_LOCAL_CONTEXT_CAP, env.GOOSE_MAX_BACKGROUND_TASKS)")
