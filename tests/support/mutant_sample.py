"""A seeded, stratified sample of a frozen suite's mutants, for tests that verify a legacy suite in part.

A frozen suite (bench-v2, bench-v3) was verified whole when it was frozen, and its hash is tested against
its lock; what a test's verify of it still guards is the harness.  :func:`stratified_sample` picks, for one
spec, the named mutants a test insists on, then — in a seeded shuffle — every mutant that brings a stratum
not yet in the sample: its failure label (liar / stub / crash), its edge class, and each check covering a
requirement it breaks (so every check kind that covers anything, golden tables included, is exercised on
a mutant); then ``extra`` further seeded draws.  The same seed gives the same sample on every run.
"""
from __future__ import annotations

import random
from collections.abc import Iterable

from swarmgym.config import Config
from swarmgym.grading.suite_verify import SuiteVerification, verify_suite
from swarmgym.suitekit.mutants import Mutant
from swarmgym.suitekit.suite import Spec, Suite

SEED = 29


def strata(spec: Spec, mutant: Mutant) -> set[str]:
    """The strata ``mutant`` stands for: its failure label, its edge class, the kind of each check covering
    what it breaks (a bench-v1 mutant: each check it targets)."""
    broken = set(mutant.breaks)
    covering = {f"kind:{c.kind}" for c in spec.checks if broken & set(c.covers or [])}
    return ({f"failure:{mutant.failure}"} | ({f"edge:{mutant.edge}"} if mutant.edge else set())
            | covering | {f"target:{t}" for t in mutant.targets})


def stratified_sample(suite: Suite, spec: Spec, *, always: Iterable[str] = (), covered: Iterable[str] = (),
                      extra: int = 2, seed: int = SEED) -> list[str]:
    """Mutant names of ``spec``: ``always`` first, then one per stratum not yet sampled, then ``extra`` more.

    ``covered``: mutants another test of the same spec verifies; their strata count as sampled and they are
    not drawn again."""
    mutants = list(suite.mutants(spec))
    by_name = {m.name: m for m in mutants}
    picked = [by_name[n].name for n in always]  # KeyError: a named mutant the suite does not have
    elsewhere = {by_name[n].name for n in covered}
    seen: set[str] = set().union(*(strata(spec, by_name[n]) for n in [*picked, *elsewhere]))
    order = sorted(mutants, key=lambda m: m.name)
    random.Random(f"{seed}:{suite.name}:{spec.id}").shuffle(order)
    rest = []
    for m in order:
        if m.name in picked or m.name in elsewhere:
            continue
        new = strata(spec, m) - seen
        if new:
            picked.append(m.name)
            seen |= new
        else:
            rest.append(m.name)
    return picked + rest[:extra]


def all_strata(suite: Suite, spec: Spec) -> set[str]:
    return set().union(*(strata(spec, m) for m in suite.mutants(spec)))


def verify_sample(suite: Suite, cfg: Config, spec_id: str, *, always: Iterable[str] = (), covered: Iterable[str] = (),
                  extra: int = 0, workers: int = 2) -> SuiteVerification:
    """Verify ``spec_id``'s reference and a :func:`stratified_sample` of its mutants, and assert what a full
    verify asserts of each of them: the reference passes every check (hard ones included), every sampled
    mutant is killed by a check covering what it breaks and keeps its failure label's promise.  Also that
    the sample (with ``covered``) spans every stratum of the spec.  The suite-level rules (a check no mutant
    fails, a missing failure label, coverage) are judged only by a full verify: they are proven when a suite
    is frozen (its lock is tested) and the rules themselves on small suites in tests/grading/test_suite_verify.py."""
    spec = suite.spec(spec_id)
    sample = stratified_sample(suite, spec, always=always, covered=covered, extra=extra)
    by_name = {m.name: m for m in suite.mutants(spec)}
    assert set().union(*(strata(spec, by_name[n]) for n in [*sample, *covered])) == all_strata(suite, spec)
    result = verify_suite(suite, cfg, workers=workers, specs=[spec_id], mutants=sample)
    assert sorted(r.name for r in result.rows) == sorted(["reference", *sample])
    assert [(r.name, r.problem) for r in result.rows if not r.ok] == []
    assert result.killed == result.mutants == len(sample)
    return result
