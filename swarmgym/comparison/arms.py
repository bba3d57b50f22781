"""An arm of a comparison: a variant and the swarm flags and env knobs laid over the environment's.

``variant[:FLAG=V,…]`` on the command line (``compare``, ``plan``, ``tune``); its label is the one every
report uses (:func:`swarmgym.trend.arms.arm`), and :attr:`Arm.spec` writes it back in the command's syntax,
so a next step can be printed as a command.
"""
from __future__ import annotations

import json
import re

from pydantic import Field

from swarmgym.core.errors import SwarmgymError, UsageError
from swarmgym.core.flags import ENV_KNOBS as FLAG_KNOBS
from swarmgym.core.flags import FLAG_PREFIXES
from swarmgym.core.names import check_name
from swarmgym.explore.scope import guard
from swarmgym.models import Model
from swarmgym.trend import arms

ARM_SYNTAX = "variant[:FLAG=V,…] (e.g. gguf or gguf:GOOSE_SWARM_REVIEW=1)"
_FLAG = re.compile(r"^[A-Z][A-Z0-9_]*$")


class Arm(Model):
    variant: str
    flags: dict[str, str] = Field(default_factory=dict)   # what the arm sets on top of the env

    @property
    def label(self) -> str:
        return arms.arm(self.variant, json.dumps(self.flags, sort_keys=True))

    @property
    def spec(self) -> str:
        """The arm as ``compare``/``tune`` take it on the command line."""
        return self.variant + (":" + ",".join(f"{k}={v}" for k, v in sorted(self.flags.items())) if self.flags else "")


def parse_arm(text: str, which: str) -> Arm:
    """``variant[:FLAG=V,…]``; anything else is a one-line usage error naming the argument.  Flags are
    ``GOOSE_SWARM_*`` (any value) and goose's env knobs, which must pass the tweaker's scope guard."""
    def bad(why: str) -> UsageError:
        return UsageError(f"{which}: expected {ARM_SYNTAX}, got {text!r} ({why})")

    variant, _, rest = text.strip().partition(":")
    if not variant:
        raise bad("no variant")
    try:
        check_name(which, variant)
    except SwarmgymError:
        raise bad("the variant must be a plain name") from None
    flags: dict[str, str] = {}
    if _ or rest:
        for item in rest.split(","):
            name, eq, value = item.strip().partition("=")
            if not eq or not _FLAG.match(name):
                raise bad(f"{item.strip() or 'empty flag'!r} is not FLAG=V")
            if not (name.startswith(FLAG_PREFIXES) or name in FLAG_KNOBS):
                raise bad(f"{name} is not a swarm flag ({', '.join(FLAG_PREFIXES)}* or {', '.join(FLAG_KNOBS)})")
            if name in FLAG_KNOBS:
                d = guard(f"env.{name}", value)
                if not d.allowed:
                    raise bad(d.reason)
                value = str(d.value)
            flags[name] = value
    return Arm(variant=variant, flags=flags)
