"""Verify a suite: every reference passes every check, every mutant fails its targets.

A suite is only a fair ruler if its checks tell good apps from realistic bad ones.  For each
spec this materializes the reference app and each mutant into a temp dir, runs all the spec's
checks (hard-only ones included) through :func:`swarmgym.grading.grade.grade`, and returns typed rows.
A check that no mutant fails is reported: it does not discriminate, which is a suite defect.

Traced suites (specs with ``requirements``, bench-v2 on) add: every requirement has a check and a
mutant that breaks it, every mutant is killed by a check covering a requirement it breaks, and the
mutation score (killed / total) must be 100 %.  See :mod:`swarmgym.suitekit.coverage` for the matrix.
"""
from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from swarmgym.config import Config
from swarmgym.core.atomic import atomic_write_text
from swarmgym.core.errors import SuiteError
from swarmgym.grading.grade import CHECKS, grade
from swarmgym.grading.mutantrun import run_focused, run_one, shows_traceback
from swarmgym.models import CheckResult
from swarmgym.suitekit.coverage import coverage
from swarmgym.suitekit.mutants import Mutant
from swarmgym.suitekit.suite import Check, Spec, Suite, locked_hash, materialize

REQUIRED_FAILURES = ("liar", "stub", "crash")


class AppRow(BaseModel):
    """The outcome of one reference or mutant against all of its spec's checks."""

    spec: str
    app_slug: str
    kind: Literal["reference", "mutant"]
    name: str
    failure: str | None = None
    description: str = ""
    targets: list[str] = Field(default_factory=list)
    breaks: list[str] = Field(default_factory=list)           # requirement ids (patch mutants)
    edge: str | None = None                                   # the edge class of an edge mutant
    passed: list[str] = Field(default_factory=list)
    failed: list[str] = Field(default_factory=list)
    missed_targets: list[str] = Field(default_factory=list)  # targets this mutant did NOT fail
    skipped: list[str] = Field(default_factory=list)         # checks not run: the verdict was decided without them
    results: list[CheckResult] = Field(default_factory=list)
    ok: bool = False
    problem: str = ""


class RequirementKills(BaseModel):
    """The mutants that break one requirement and which of them some check killed."""

    spec: str
    id: str
    mutants: list[str] = Field(default_factory=list)
    killed: list[str] = Field(default_factory=list)


class SuiteVerification(BaseModel):
    suite: str
    hash: str
    locked_hash: str | None
    hash_ok: bool
    rows: list[AppRow]
    uncaught: dict[str, list[str]] = Field(default_factory=dict)  # spec id -> checks no mutant fails
    problems: list[str] = Field(default_factory=list)            # suite-level defects, one line each
    killed: int = 0                                              # mutants some check fails
    mutants: int = 0
    kills: list[RequirementKills] = Field(default_factory=list)  # per requirement (traced specs)
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.hash_ok and not self.problems and all(r.ok for r in self.rows)

    @property
    def mutation_score(self) -> float:
        return self.killed / self.mutants if self.mutants else 1.0


def _contract(row: AppRow, spec: Spec, ws_text: str) -> str:
    """What a mutant's failure label promises, checked: the simulator relies on it.

    A liar passes its own tests (``tests_pass``) unless failing them is the requirement it breaks.
    """
    by_name = {r.name: r for r in row.results}
    own = next((c for c in spec.checks if c.name == "tests_pass"), None)
    breaks_own = own is not None and bool(set(own.covers or []) & set(row.breaks))
    if row.failure == "liar" and own and not breaks_own and not by_name[own.name].passed:
        return "labelled liar but its own tests fail (tests_pass)"
    if row.failure == "stub" and "NotImplementedError" not in ws_text:
        return "labelled stub but raises no NotImplementedError"
    if row.failure == "crash" and not any(shows_traceback(r) for r in row.results):
        return "labelled crash but no check shows a traceback"
    return ""


def _judge_traced(row: AppRow, spec: Spec, ws_text: str) -> AppRow:
    covering = {c.name for c in spec.checks if set(c.covers or []) & set(row.breaks)}
    unknown = sorted(set(row.breaks) - {r.id for r in spec.requirements or []})
    if unknown:
        row.problem = f"breaks unknown requirement(s) {', '.join(unknown)}"
    elif not row.breaks:
        row.problem = "lists no requirement it breaks"
    elif not row.failed:
        row.problem = "survives: every check passes"
    elif not covering & set(row.failed):
        row.problem = (f"killed only by {', '.join(row.failed)}, none of which covers {', '.join(row.breaks)}")
    else:
        row.problem = _contract(row, spec, ws_text)
    row.ok = not row.problem
    return row


def _judge(row: AppRow, check_names: list[str]) -> AppRow:
    if row.kind == "reference":
        row.ok = not row.failed
        row.problem = "" if row.ok else f"reference fails {', '.join(row.failed)}"
        return row
    unknown = [t for t in row.targets if t not in check_names]
    row.missed_targets = [t for t in row.targets if t in check_names and t not in row.failed]
    if unknown:
        row.problem = f"targets unknown check(s) {', '.join(unknown)}"
    elif not row.targets:
        row.problem = "mutant.yaml lists no targets"
    elif row.missed_targets:
        row.problem = f"passes its target(s) {', '.join(row.missed_targets)}"
    row.ok = not row.problem
    return row


def verify_app(suite: Suite, spec: Spec, cfg: Config, mutant: Mutant | None = None,
               exhaustive: bool = False) -> AppRow:
    """Materialize one reference (``mutant=None``) or mutant and run the checks of ``spec``: every one for
    a reference, a bench-v1 mutant or ``exhaustive``; else those that decide the mutant's verdict
    (:mod:`swarmgym.grading.mutantrun`), the others listed as ``skipped``."""
    checks = spec.checks_for(hard=True)
    row = AppRow(spec=spec.id, app_slug=spec.app_slug, kind="mutant" if mutant else "reference",
                 name=mutant.name if mutant else "reference", failure=mutant.failure if mutant else None,
                 description=mutant.description if mutant else "", targets=list(mutant.targets) if mutant else [],
                 breaks=list(mutant.breaks) if mutant else [], edge=mutant.edge if mutant else None)
    with tempfile.TemporaryDirectory(prefix=f"swarmgym-verify-{spec.app_slug}-") as tmp:
        try:
            ws = materialize(suite, spec, Path(tmp) / spec.app_slug, mutant)
        except OSError as e:  # e.g. no reference folder: a suite defect, reported as a row
            row.problem = f"cannot materialize: {e.strerror or e} ({e.filename or suite.reference_dir(spec)})"
            return row
        except SuiteError as e:  # a patch that no longer applies to the reference
            row.problem = str(e)
            return row
        traced = mutant is not None and spec.requirements is not None and not mutant.targets
        if traced and not exhaustive:
            assert mutant is not None
            row.results, row.skipped = run_focused(mutant, checks, ws, cfg)
        else:
            row.results = grade(ws, checks, cfg, dimensions=CHECKS, strict=True, first_failure=True).check_results()
        ws_text = "".join(f.read_text(errors="replace") for f in ws.rglob("*")  # the stub contract's evidence
                          if mutant and f.is_file() and f.suffix != ".db" and f.stat().st_size < 1_000_000)
    row.passed = [r.name for r in row.results if r.passed]
    row.failed = [r.name for r in row.results if not r.passed]
    if mutant is not None and spec.requirements is not None and not mutant.targets:
        return _judge_traced(row, spec, ws_text)
    return _judge(row, [c.name for c in checks])


def plan(suite: Suite, specs: list[str] | None = None,
         mutants: list[str] | None = None) -> list[tuple[Spec, Mutant | None]]:
    """Every (spec, reference-or-mutant) pair to run, references first within a spec.

    ``mutants`` keeps only those mutant names (a quick representative run; the suite-level
    problems that need every mutant are then not judged).
    """
    chosen = [suite.spec(s) for s in specs] if specs else suite.specs
    return [(spec, m) for spec in chosen for m in [None, *suite.mutants(spec)]
            if m is None or mutants is None or m.name in mutants]


def suite_problems(suite: Suite, rows: list[AppRow], specs: list[Spec]) -> tuple[dict[str, list[str]], list[str]]:
    uncaught: dict[str, list[str]] = {}
    problems: list[str] = []
    for spec in specs:
        mine = [r for r in rows if r.spec == spec.id and r.kind == "mutant"]
        caught = {name for r in mine for name in r.failed}
        missing = [c.name for c in spec.checks if c.name not in caught]
        if missing:
            uncaught[spec.id] = missing
            problems.append(f"spec {spec.id}: no mutant fails check(s) {', '.join(missing)}")
        kinds = {r.failure for r in mine}
        lacking = [f for f in REQUIRED_FAILURES if f not in kinds]
        if lacking:
            problems.append(f"spec {spec.id}: no mutant with failure {', '.join(lacking)}")
        if spec.requirements is not None:
            problems += trace_problems(spec, mine)
    return uncaught, problems


def trace_problems(spec: Spec, mutant_rows: list[AppRow]) -> list[str]:
    """A requirement without a check, or without a mutant that breaks it; a mutant the simulator cannot draw."""
    out = []
    covered = {r for c in spec.checks for r in c.covers or []}
    broken = {r for m in mutant_rows for r in m.breaks}
    ids = [r.id for r in spec.requirements or []]
    if no_check := [r for r in ids if r not in covered]:
        out.append(f"spec {spec.id}: requirement(s) with no check: {', '.join(no_check)}")
    if no_mutant := [r for r in ids if r not in broken]:
        out.append(f"spec {spec.id}: requirement(s) no mutant breaks: {', '.join(no_mutant)}")
    if odd := [m.name for m in mutant_rows if m.failure not in REQUIRED_FAILURES]:
        out.append(f"spec {spec.id}: mutant(s) the simulator cannot draw (failure not liar/stub/crash): {', '.join(odd)}")
    return out


def requirement_kills(specs: list[Spec], rows: list[AppRow]) -> list[RequirementKills]:
    """Per requirement of each traced spec: the mutants that break it and those some check killed."""
    out = []
    for spec in specs:
        mine = [r for r in rows if r.spec == spec.id and r.kind == "mutant"]
        for req in spec.requirements or []:
            breaking = [r for r in mine if req.id in r.breaks]
            out.append(RequirementKills(spec=spec.id, id=req.id, mutants=[r.name for r in breaking],
                                        killed=[r.name for r in breaking if r.failed]))
    return out


def catch_up(suite: Suite, spec: Spec, rows: list[AppRow], cfg: Config, pool: ThreadPoolExecutor) -> None:
    """For each check of ``spec`` that no mutant failed, run it on the mutants that skipped it (those
    breaking what it covers first) until one fails: a check is only "uncaught" if every mutant passed it."""
    mine = [r for r in rows if r.spec == spec.id and r.kind == "mutant" and r.skipped]
    by_name = {m.name: m for m in suite.mutants(spec)}

    def try_check(check: Check) -> None:
        covers = set(check.covers or [])
        for row in sorted((r for r in mine if check.name in r.skipped), key=lambda r: not covers & set(r.breaks)):
            with tempfile.TemporaryDirectory(prefix=f"swarmgym-verify-{spec.app_slug}-") as tmp:
                res = run_one(check, materialize(suite, spec, Path(tmp) / spec.app_slug, by_name[row.name]), cfg)
            row.results.append(res)
            row.skipped.remove(check.name)
            (row.passed if res.passed else row.failed).append(check.name)
            if not res.passed:
                return

    caught = {name for r in rows if r.spec == spec.id and r.kind == "mutant" for name in r.failed}
    list(pool.map(try_check, [c for c in spec.checks_for(hard=True) if c.name not in caught]))


def verify_suite(suite: Suite, cfg: Config, *, workers: int = 3, specs: list[str] | None = None,
                 on_row: Callable[[AppRow], None] | None = None, mutants: list[str] | None = None,
                 require_lock: bool = True, exhaustive: bool = False) -> SuiteVerification:
    """Run every reference and mutant of ``suite`` (``workers`` apps at a time).

    A full run (no ``mutants`` filter) also judges the suite-level rules, the coverage holes of
    :func:`swarmgym.suitekit.coverage.coverage` included; ``require_lock=False`` (``suite freeze``) does not
    count a missing ``suite.lock`` as a defect.  A mutant runs only the checks that decide its verdict
    (:mod:`swarmgym.grading.mutantrun`) unless ``exhaustive``; a check no mutant failed is then tried on the
    mutants that skipped it (:func:`catch_up`), so the suite-level verdict is the exhaustive one."""
    start = time.monotonic()
    jobs = plan(suite, specs, mutants)

    def one(job: tuple[Spec, Mutant | None]) -> AppRow:
        row = verify_app(suite, job[0], cfg, job[1], exhaustive=exhaustive)
        if on_row:
            on_row(row)
        return row

    chosen = [suite.spec(s) for s in specs] if specs else list(suite.specs)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        rows = list(pool.map(one, jobs))
        if mutants is None:
            for spec in chosen:
                catch_up(suite, spec, rows, cfg, pool)
    uncaught, problems = suite_problems(suite, rows, chosen) if mutants is None else ({}, [])
    if mutants is None:
        problems += coverage(suite, specs).problems
    locked = locked_hash(suite)
    hash_ok = locked == suite.hash or (locked is None and not require_lock)
    if locked is None and require_lock:
        problems.append(f"{suite.folder / 'suite.lock'}: missing; freeze it with `swarmgym suite freeze`")
    elif not hash_ok:
        problems.append(f"{suite.folder / 'suite.lock'}: holds {locked} but the suite hashes to {suite.hash}; "
                        "a frozen suite was edited: make a new suite instead")
    mrows = [r for r in rows if r.kind == "mutant"]
    return SuiteVerification(suite=suite.name, hash=suite.hash, locked_hash=locked, hash_ok=hash_ok,
                             rows=rows, uncaught=uncaught, problems=problems,
                             killed=sum(1 for r in mrows if r.failed), mutants=len(mrows),
                             kills=requirement_kills(chosen, rows),
                             wall_s=round(time.monotonic() - start, 1))


def freeze_suite(suite: Suite, cfg: Config, *, workers: int = 3, on_row: Callable[[AppRow], None] | None = None,
                 exhaustive: bool = False) -> tuple[SuiteVerification | None, list[str]]:
    """Freeze ``suite`` if it is whole: (verification, holes).  Coverage holes refuse at once (no
    verification run, ``(None, holes)``); otherwise every reference and mutant runs, and ``suite.lock``
    is written only if the verification is clean.  An existing lock is never rewritten: a lock that
    matches is kept, one that differs is a SuiteError (a frozen suite was edited)."""
    lock = suite.folder / "suite.lock"
    locked = locked_hash(suite)
    if locked is not None and locked != suite.hash:
        raise SuiteError(f"{lock}: holds {locked} but the suite hashes to {suite.hash}; a frozen suite cannot "
                         "change: copy it to a new suite name instead")
    holes = coverage(suite).problems
    if holes:
        return None, holes
    result = verify_suite(suite, cfg, workers=workers, on_row=on_row, require_lock=False, exhaustive=exhaustive)
    if result.ok and locked is None:
        atomic_write_text(lock, suite.hash + "\n")
        result.locked_hash = suite.hash
    return result, []
