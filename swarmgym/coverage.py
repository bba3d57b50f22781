"""The traceability matrix of a suite: requirement × checks that cover it × mutants that break it.

Static (read from suite.yaml and the mutants); ``swarmgym suite verify`` is what proves the
mutants are killed.  A requirement with no check or no mutant is a hole in the ruler.
"""
from __future__ import annotations

from pydantic import BaseModel, Field

from swarmgym.suite import Suite


class RequirementRow(BaseModel):
    spec: str
    id: str
    text: str
    hard_only: bool = False
    checks: list[str] = Field(default_factory=list)
    mutants: list[str] = Field(default_factory=list)


class Coverage(BaseModel):
    suite: str
    hash: str
    rows: list[RequirementRow]
    untraced_specs: list[str] = Field(default_factory=list)  # specs without requirements (bench-v1)

    @property
    def without_check(self) -> list[RequirementRow]:
        return [r for r in self.rows if not r.checks]

    @property
    def without_mutant(self) -> list[RequirementRow]:
        return [r for r in self.rows if not r.mutants]

    def per_spec(self) -> dict[str, dict[str, int]]:
        """spec -> {requirements, covered, broken}: the numbers a report quotes."""
        out: dict[str, dict[str, int]] = {}
        for r in self.rows:
            s = out.setdefault(r.spec, {"requirements": 0, "covered": 0, "broken": 0})
            s["requirements"] += 1
            s["covered"] += bool(r.checks)
            s["broken"] += bool(r.mutants)
        return out


def coverage(suite: Suite, specs: list[str] | None = None) -> Coverage:
    chosen = [suite.spec(s) for s in specs] if specs else suite.specs
    rows: list[RequirementRow] = []
    untraced = []
    for spec in chosen:
        if spec.requirements is None:
            untraced.append(spec.id)
            continue
        mutants = suite.mutants(spec)
        for req in spec.requirements:
            rows.append(RequirementRow(
                spec=spec.id, id=req.id, text=req.text, hard_only=req.hard_only,
                checks=[c.name for c in spec.checks if req.id in (c.covers or [])],
                mutants=[m.name for m in mutants if req.id in m.breaks]))
    return Coverage(suite=suite.name, hash=suite.hash, rows=rows, untraced_specs=untraced)
