"""What a doctor check is: a function ``(Probe) -> Finding``, registered by name, in the order shown."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from swarmgym.config import Config

Status = Literal["pass", "fail", "skip"]


@dataclass(frozen=True)
class Probe:
    """What every check may look at: the loaded config and the swarm adapter the runs would use."""

    cfg: Config
    adapter: str


@dataclass(frozen=True)
class Finding:
    name: str
    status: Status  # skip: the check does not apply to this setup (e.g. goose's pool with --swarm sim)
    found: str
    fix: str = ""
    needed_for: str = "every run"  # every run | the fleet | the goose swarm

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


Check = Callable[[Probe], Finding]
CHECKS: dict[str, Check] = {}


def register_check(name: str, fn: Check) -> Check:
    CHECKS[name] = fn
    return fn


def check(name: str) -> Callable[[Check], Check]:
    """Decorator: register the function as the check called ``name``."""
    return lambda fn: register_check(name, fn)
