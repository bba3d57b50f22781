"""bench-v5, the default suite: bench-v4 word for word (prompts, references, checks, every row and mutant) plus the
rows and edge mutants of eleven edge classes that cut across every spec; frozen as verified."""
from __future__ import annotations

import json
import shutil

import pytest

from swarmgym import REPO_ROOT
from swarmgym.config import load_config
from swarmgym.suitekit.coverage import coverage
from swarmgym.suitekit.suite import TABLE_KINDS
from tests.support.benches import INDEPENDENT, V4, V5
from tests.support.grading import check_results

SHARED = {"example", "unicode_digit", "unicode_space", "case", "line_end", "empty_output", "error_reach", "calendar",
          "number_form", "ties", "largest"}


def test_bench_v5_is_the_default_suite(tmp_path):
    assert load_config(tmp_path, environ={}).suite == "bench-v5"


def test_bench_v5_keeps_bench_v4s_prompts_references_checks_rows_and_mutants():
    assert [s.id for s in V5.specs] == [s.id for s in V4.specs]
    for a, b in zip(V4.specs, V5.specs):
        assert (a.app_slug, a.prompt, a.hard_prompt, a.starter) == (b.app_slug, b.prompt, b.hard_prompt, b.starter)
        assert [(r.id, r.text) for r in a.requirements] == [(r.id, r.text) for r in b.requirements]
        assert [(c.name, c.kind) for c in a.checks] == [(c.name, c.kind) for c in b.checks]
        assert [m.name for m in V5.mutants(b)][:len(V4.mutants(a))] == [m.name for m in V4.mutants(a)]
        for ref in sorted(V4.reference_dir(a).rglob("*.py")):
            assert (V5.reference_dir(b) / ref.relative_to(V4.reference_dir(a))).read_bytes() == ref.read_bytes()
        for c4, c5 in zip(a.checks, b.checks):
            if c4.kind in TABLE_KINDS:
                old = [r["id"] for r in json.loads(c4.table_file().read_text())["rows"]]
                new = [r["id"] for r in json.loads(c5.table_file().read_text())["rows"]]
                assert new[:len(old)] == old  # v5 appends rows, never drops or reorders v4's
    assert V5.hash != V4.hash


def test_every_shared_edge_class_is_declared_sampled_and_broken_without_a_hole():
    assert SHARED <= set(V5.edge_classes)
    cov = coverage(V5, [s.id for s in V5.specs])
    assert cov.problems == []
    sampled = {c.edge for c in cov.edges if c.rows}
    broken = {m.edge for s in V5.specs for m in V5.mutants(s)}
    assert SHARED <= sampled and SHARED <= broken


def test_bench_v5_is_frozen_as_verified():
    assert (V5.root / "suite.lock").read_text().strip() == V5.hash  # the hash `suite freeze` verified


@pytest.mark.slow  # every check of a spec, twice (the prompt and the hard prompt), in the check box
@pytest.mark.parametrize("spec_id", sorted(INDEPENDENT))
def test_an_app_written_from_the_prompt_alone_passes_every_check_of_bench_v5(spec_id, tmp_path):
    """No false alarm: an independent correct app (its own layout, style and wording) passes every check, the new
    edge rows included (it once failed two: a message repeating an id that holds a line break, and a log cut into
    lines with ``str.splitlines()``, a reading the prompt leaves open)."""
    cfg = load_config(tmp_path / "home", environ={}, overrides={"checks.timeout": 180})
    ws = tmp_path / "ws"
    shutil.copytree(REPO_ROOT / "tests" / "fixtures" / INDEPENDENT[spec_id], ws)
    for hard in (False, True):
        checks = V5.spec(spec_id).checks_for(hard=hard)
        assert {r.name: r.detail for r in check_results(checks, ws, cfg) if not r.passed} == {}
