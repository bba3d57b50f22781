"""bench-v5 (the default before bench-v6): bench-v4 word for word (prompts, references, checks, every row and
mutant) plus the rows and edge mutants of eleven edge classes that cut across every spec; frozen as verified."""
from __future__ import annotations

import json
import shutil

import pytest

from swarmgym import REPO_ROOT
from swarmgym.config import load_config
from swarmgym.suitekit.coverage import coverage
from swarmgym.suitekit.suite import TABLE_KINDS, materialize
from tests.support.benches import INDEPENDENT, STYLES, V4, V5, row_ids, v4_rows_v5_changed
from tests.support.grading import check_results

SHARED = {"example", "unicode_digit", "unicode_space", "case", "line_end", "empty_output", "error_reach", "calendar",
          "number_form", "ties", "largest"}


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
            assert (c4.hard_only, c4.module, c4.run) == (c5.hard_only, c5.module, c5.run)
            if c4.kind in TABLE_KINDS:
                old = json.loads(c4.table_file().read_text())["rows"]
                new = json.loads(c5.table_file().read_text())["rows"]
                assert [r["id"] for r in new[:len(old)]] == [r["id"] for r in old]  # v5 appends, never drops or reorders
                changed = v4_rows_v5_changed().get((a.id, c4.name), ())
                for r4, r5 in zip(old, new):  # word for word, but four error rows whose message may run over lines
                    assert (r4 == r5) == (r4["id"] not in changed), (a.id, c4.name, r4["id"])
                    if r4 != r5:
                        assert [{k: v for k, v in st.items() if k != "err_lines_open"} for st in r5["steps"]] == \
                            r4["steps"] and {k: v for k, v in r5.items() if k != "steps"} == \
                            {k: v for k, v in r4.items() if k != "steps"}, (a.id, r4["id"])
    assert v4_rows_v5_changed() == {("compute", "golden_table"): ("empty",), ("modular", "golden_table"): ("text-empty",),
                                    ("extend", "old_behaviour"): ("blank",), ("money", "golden_table"): ("name-empty",)}
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


@pytest.mark.slow  # every check of a spec in the check box
@pytest.mark.parametrize("spec_id", sorted(INDEPENDENT))
def test_an_app_written_from_the_prompt_alone_passes_every_check_of_bench_v5(spec_id, tmp_path):
    """No false alarm: an independent correct app (its own layout, style and wording) passes every check of the
    prompt and of the hard prompt, the new edge rows included (it once failed two: a message repeating an id that
    holds a line break, and a log cut into lines with ``str.splitlines()``, a reading the prompt leaves open).
    The prompt's checks are among the hard prompt's, so one grading of the hard prompt's answers for both."""
    cfg = load_config(tmp_path / "home", environ={}, overrides={"checks.timeout": 180})
    ws = tmp_path / "ws"
    shutil.copytree(REPO_ROOT / "tests" / "fixtures" / INDEPENDENT[spec_id], ws)
    spec = V5.spec(spec_id)
    assert all(c in spec.checks_for(hard=True) for c in spec.checks_for(hard=False))
    assert {r.name: r.detail for r in check_results(spec.checks_for(hard=True), ws, cfg) if not r.passed} == {}


@pytest.mark.slow
@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("spec_id", [s.id for s in V5.specs])
def test_a_correct_app_in_another_output_style_passes_every_row_of_bench_v4_and_bench_v5(spec_id, style, tmp_path):
    """The reference printing through ``sys.stdout.buffer`` then ``os._exit``, or through ``sys.stdout.write``,
    passes every row of bench-v5's tables — bench-v4's (which bench-v5 carries word for word but for the few rows
    :func:`v4_rows_v5_changed` names, graded here on bench-v4's own table) and the rows of every new edge class."""
    cfg = load_config(tmp_path / "home", environ={}, overrides={"checks.timeout": 180})
    spec = V5.spec(spec_id)
    ws = materialize(V5, spec, tmp_path / spec_id)
    (ws / spec.app_slug / "__main__.py").write_text(STYLES[style].format(slug=spec.app_slug))
    rows = [c for c in spec.checks_for(hard=True) if c.kind == "rows"]
    assert rows and [c.name for c in rows] == [c.name for c in V4.spec(spec_id).checks_for(hard=True) if c.kind == "rows"]
    results = check_results(rows, ws, cfg)
    for (sid, name), ids in v4_rows_v5_changed().items():
        if sid == spec_id:
            [v4] = [c for c in V4.spec(spec_id).checks if c.name == name]
            [res] = check_results([v4], ws, cfg, row_filter=row_ids(*ids))
            assert res.passed and res.detail == f"{len(ids)}/{len(ids)} golden rows match", (name, res.detail)
    assert {r.name: r.detail for r in results if not r.passed} == {}
    shutil.rmtree(ws)
