"""The traceability matrix of a suite: requirement × checks that cover it × mutants that break it,
and, for suites whose requirements declare their inputs' edge classes (bench-v3 on), requirement ×
edge class × golden rows × edge mutants.

Static (read from suite.yaml, the golden tables and the mutants); ``swarmgym suite verify`` is what
proves the mutants are killed.  A requirement with no check or no mutant, or an edge class that no
row samples or no mutant breaks, is a hole in the ruler: :attr:`Coverage.problems` lists each hole
in one line, and ``suite coverage`` / ``suite verify`` / ``suite freeze`` refuse a suite with any.
"""
from __future__ import annotations

import json
from collections import Counter

from pydantic import BaseModel, Field

from swarmgym.suitekit.edges import known_classes
from swarmgym.suitekit.mutants import Mutant
from swarmgym.suitekit.suite import TABLE_KINDS, Spec, Suite


class RequirementRow(BaseModel):
    spec: str
    id: str
    text: str
    hard_only: bool = False
    checks: list[str] = Field(default_factory=list)
    mutants: list[str] = Field(default_factory=list)


class EdgeCell(BaseModel):
    """One declared (requirement, edge class): what samples it and what breaks it on that edge."""

    spec: str
    id: str
    edge: str
    rows: int = 0                                          # golden rows tagged with the class
    checks: list[str] = Field(default_factory=list)        # command checks that list the class
    mutants: list[str] = Field(default_factory=list)       # edge mutants of this class breaking it


class Coverage(BaseModel):
    suite: str
    hash: str
    rows: list[RequirementRow]
    untraced_specs: list[str] = Field(default_factory=list)  # specs without requirements (bench-v1)
    edges: list[EdgeCell] = Field(default_factory=list)      # edge-traced specs only
    edge_specs: list[str] = Field(default_factory=list)      # specs whose requirements declare inputs
    problems: list[str] = Field(default_factory=list)        # every hole, one line each

    @property
    def ok(self) -> bool:
        return not (self.without_check or self.without_mutant or self.problems)

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


    def edge_matrix(self) -> dict[str, dict[str, dict[str, EdgeCell]]]:
        """spec -> requirement -> edge class -> cell (for tables)."""
        out: dict[str, dict[str, dict[str, EdgeCell]]] = {}
        for c in self.edges:
            out.setdefault(c.spec, {}).setdefault(c.id, {})[c.edge] = c
        return out


def coverage(suite: Suite, specs: list[str] | None = None) -> Coverage:
    chosen = [suite.spec(s) for s in specs] if specs else suite.specs
    cov = Coverage(suite=suite.name, hash=suite.hash, rows=[])
    for spec in chosen:
        if spec.requirements is None:
            cov.untraced_specs.append(spec.id)
            continue
        mutants = suite.mutants(spec)
        for req in spec.requirements:
            cov.rows.append(RequirementRow(
                spec=spec.id, id=req.id, text=req.text, hard_only=req.hard_only,
                checks=[c.name for c in spec.checks if req.id in (c.covers or [])],
                mutants=[m.name for m in mutants if req.id in m.breaks]))
        if any(r.inputs is not None for r in spec.requirements):
            cov.edge_specs.append(spec.id)
            _edge_trace(suite, spec, mutants, cov)
    return cov


def table_rows(spec: Spec) -> list[dict]:
    """Every golden row of the spec's differential checks (read from the frozen tables)."""
    out: list[dict] = []
    for c in spec.checks:
        if c.kind in TABLE_KINDS:
            out += json.loads(c.table_file().read_text()).get("rows", [])
    return out


def _edge_trace(suite: Suite, spec: Spec, mutants: list[Mutant], cov: Coverage) -> None:
    """Fill ``cov.edges`` for one spec and add its holes to ``cov.problems``."""
    known = known_classes(suite.edge_classes)
    reqs = {r.id: r for r in spec.requirements or []}
    sampled: Counter[tuple[str, str]] = Counter()
    for r in table_rows(spec):
        declared = set()
        for rid in r.get("req", []):
            for e in r.get("edges", []):
                sampled[(rid, e)] += 1
                if rid in reqs and e in reqs[rid].edge_classes():
                    declared.add(e)
        if stray := [e for e in r.get("edges", []) if e not in declared]:
            cov.problems.append(f"spec {spec.id}: golden row {r.get('id')} samples edge class(es) "
                                f"{', '.join(stray)} that none of its requirements declares")
    problems = cov.problems
    for m in mutants:
        if m.edge is None:
            continue
        if m.edge not in known:
            problems.append(f"spec {spec.id}: mutant {m.name} names unknown edge class {m.edge!r}")
        elif not any(m.edge in reqs[b].edge_classes() for b in m.breaks if b in reqs):
            problems.append(f"spec {spec.id}: edge mutant {m.name} ({m.edge}) breaks no requirement declaring that class")
    for req in reqs.values():
        if req.inputs is None:
            problems.append(f"spec {spec.id}: requirement {req.id} declares no inputs (use inputs: {{}} when it takes none)")
            continue
        for e in req.edge_classes():
            cell = EdgeCell(spec=spec.id, id=req.id, edge=e, rows=sampled[(req.id, e)],
                            checks=[c.name for c in spec.checks if req.id in (c.covers or []) and e in (c.edges or [])],
                            mutants=[m.name for m in mutants if m.edge == e and req.id in m.breaks])
            cov.edges.append(cell)
            if not cell.rows and not cell.checks:
                problems.append(f"spec {spec.id}: requirement {req.id}: no golden row or check samples edge class {e!r}")
        if req.edge_classes() and not any(m.edge and req.id in m.breaks for m in mutants):
            problems.append(f"spec {spec.id}: requirement {req.id} has edge classes but no edge mutant breaks it")
    if len(mutants) < suite.min_mutants_per_spec:
        problems.append(f"spec {spec.id}: {len(mutants)} mutants, the suite asks for at least {suite.min_mutants_per_spec}")
    used = {e for r in reqs.values() for e in r.edge_classes()}
    if lacking := sorted(e for e in used if not any(m.edge == e for m in mutants)):
        problems.append(f"spec {spec.id}: no edge mutant for edge class(es) {', '.join(lacking)}")
