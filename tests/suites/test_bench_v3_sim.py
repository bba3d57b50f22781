"""bench-v3 is a frozen suite (bench-v5 grades its prompts by default), and the simulator builds its mutants: every one a run's fault can show."""
from __future__ import annotations

import pytest

from swarmgym import REPO_ROOT
from swarmgym.sim.faults import pick_mutant
from swarmgym.suitekit.suite import load_suite
from tests.support.draws import Fixed

V3 = load_suite("bench-v3", REPO_ROOT / "suites")



class Parsed:
    """The suite with each spec's mutants parsed once (the simulator parses them once per run)."""

    def __init__(self, spec, mutants):
        self.spec, self.list = spec, mutants

    def mutants(self, spec):
        assert spec is self.spec
        return self.list


@pytest.mark.parametrize("spec_id", [s.id for s in V3.specs])
def test_every_v3_mutant_a_prompt_can_show_is_drawn_by_the_simulator(spec_id):
    spec = V3.spec(spec_id)
    mutants = V3.mutants(spec)
    hard_ids = {r.id for r in spec.requirements or [] if r.hard_only}
    for hard in (False, True):
        drawn = set()
        for code in ("liar", "stub", "crash"):
            n = sum(m.failure == code for m in mutants)
            drawn |= {m.name for k in range(n) if (m := pick_mutant(Parsed(spec, mutants), spec, code, Fixed((k + 0.5) / n), hard))}
        visible = {m.name for m in mutants if hard or not m.breaks or not set(m.breaks) <= hard_ids}
        assert drawn == visible and len(drawn) >= 30
    # a normal prompt's run can still fail in every way the profile draws
    assert {"liar", "stub", "crash"} <= {m.failure for m in mutants if not set(m.breaks) <= hard_ids}


def test_bench_v3_is_frozen_as_verified():
    assert (V3.root / "suite.lock").read_text().strip() == V3.hash  # the hash `suite freeze` verified
    assert len(V3.specs) == 9
