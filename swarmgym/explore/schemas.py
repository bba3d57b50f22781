"""The shapes a brain must answer in, validated like any untrusted input.

Brain-written checks are :class:`swarmgym.suitekit.suite.Check` (only the five kinds) and run in the same
sandbox as the suite's; on top, a path may not be absolute or climb out of the workspace, and a
command is capped in length.  A reply that breaks a rule is re-asked with the error appended.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from swarmgym.suitekit.suite import Check

MOVES = ("feature", "fix", "tests", "refactor", "mcp-feature", "change-direction", "done")
SLUG = re.compile(r"^[a-z][a-z0-9_]{1,39}$")
MAX_RUN = 4000


def vet_check(c: Check) -> Check:
    """Reject checks that reach outside the workspace (the sandbox still applies to what passes)."""
    if c.path is not None:
        p = PurePosixPath(c.path)
        if p.is_absolute() or ".." in p.parts or c.path.startswith("~") or "\\" in c.path:
            raise ValueError(f"check {c.name!r}: path {c.path!r} must be relative to the app workspace, "
                             "without '..' (no reading outside it)")
    if c.run is not None and len(c.run) > MAX_RUN:
        raise ValueError(f"check {c.name!r}: command longer than {MAX_RUN} characters")
    if c.timeout is not None and not 0 < c.timeout <= 600:
        raise ValueError(f"check {c.name!r}: timeout must be in (0, 600] seconds")
    if not c.name.strip():
        raise ValueError("every check needs a name")
    return c


def vet_checks(checks: list[Check]) -> list[Check]:
    names = [c.name for c in checks]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"check names must be unique; repeated: {', '.join(sorted(dup))}")
    return [vet_check(c) for c in checks]


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Opener(_Reply):
    app_slug: str
    language: str = "python"
    prompt: str = Field(min_length=1)
    visible_requirements: list[str] = Field(default_factory=list)
    hidden_requirements: list[str] = Field(default_factory=list)
    checks: list[Check] = Field(min_length=1)
    expected_tool: str | None = None  # an MCP tool, e.g. "context7__resolve-library-id"

    @field_validator("app_slug")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not SLUG.match(v):
            raise ValueError(f"app_slug {v!r} must be a Python module name: lower case letters, digits, _ (2-40)")
        return v

    @field_validator("checks")
    @classmethod
    def _checks(cls, v: list[Check]) -> list[Check]:
        return vet_checks(v)

    @property
    def mcp_server(self) -> str | None:
        if not self.expected_tool:
            return None
        return self.expected_tool.split("__", 1)[0] if "__" in self.expected_tool else self.expected_tool


class NextMove(_Reply):
    move: Literal["feature", "fix", "tests", "refactor", "mcp-feature", "change-direction", "done"]
    prompt: str = ""
    checks: list[Check] = Field(default_factory=list)
    rationale: str = ""
    expected_tool: str | None = None

    @field_validator("checks")
    @classmethod
    def _checks(cls, v: list[Check]) -> list[Check]:
        return vet_checks(v)

    @model_validator(mode="after")
    def _prompt_unless_done(self) -> "NextMove":
        if self.move != "done" and not self.prompt.strip():
            raise ValueError(f"move {self.move!r} needs a prompt for the swarm")
        return self


def merge_checks(old: list[Check], new: list[Check], turn: int) -> list[Check]:
    """Old checks stay (they become regression checks); a new check with a taken name is renamed."""
    taken = {c.name for c in old}
    out = list(old)
    for c in new:
        if c in old:  # the brain repeated an old check verbatim
            continue
        name = c.name if c.name not in taken else f"{c.name}-t{turn}"
        taken.add(name)
        out.append(c if name == c.name else c.model_copy(update={"name": name}))
    return out
