"""The brain protocol and its registry."""
from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Callable, Protocol, runtime_checkable

from swarmgym.core.errors import ConfigError

if TYPE_CHECKING:
    from swarmgym.config import Config

ROLES = ("opener", "next_move", "tweaker", "judge")


@dataclass
class Usage:
    """What a brain spent: accumulated over every call it made."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, input_tokens: int | None, output_tokens: int | None) -> None:
        self.calls += 1
        self.input_tokens += int(input_tokens or 0)
        self.output_tokens += int(output_tokens or 0)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@runtime_checkable
class Brain(Protocol):
    name: str
    usage: Usage

    def complete(self, role: str, system: str, user: str, max_tokens: int | None = None) -> str:
        """Return the model's text reply; raise BrainError when no reply can be had."""


# name -> "module:factory"; factories take the config and return a Brain.
BRAINS: dict[str, str | Callable[["Config"], Brain]] = {
    "claude": "swarmgym.brains.claude:ClaudeBrain",
    "local": "swarmgym.brains.local:LocalBrain",
    "operator": "swarmgym.brains.operator:OperatorBrain",
}


def register_brain(name: str, factory: Callable[["Config"], Brain] | str) -> None:
    BRAINS[name] = factory


def get_brain(name: str | None, cfg: "Config") -> Brain:
    """The brain called ``name`` (default: ``cfg.brain.provider``, which SWARMGYM_BRAIN_PROVIDER sets)."""
    name = name or cfg.brain.provider
    factory = BRAINS.get(name)
    if factory is None:
        raise ConfigError(f"brain.provider: unknown brain {name!r}; expected one of {', '.join(sorted(BRAINS))}")
    if isinstance(factory, str):
        mod, _, attr = factory.partition(":")
        factory = getattr(importlib.import_module(mod), attr)
    return factory(cfg)
