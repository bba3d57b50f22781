"""bench-v6, the default suite: bench-v5 word for word but for the tables (both tiers) of the six specs driven by
command sequences, drawn again as trees (``suites/bench-v6/gen/gen_v6.py``) so that rows sharing a prefix share
its run."""
from __future__ import annotations

import json
import shutil

import pytest

from swarmgym import REPO_ROOT
from swarmgym.config import load_config
from swarmgym.grading import difftable
from swarmgym.suitekit.coverage import coverage
from swarmgym.suitekit.suite import TABLE_KINDS, materialize, seed_workspace
from tests.support.benches import INDEPENDENT, STYLES, V3, V5, V6
from tests.support.grading import check_results

REDRAWN = {(spec, name) for spec in ("fsm", "crud", "txn", "modular", "money", "extend")
           for name in ("golden_table", "hard_golden_table")} | {("extend", "old_behaviour")}  # drawn as trees
SPECS = sorted({s for s, _ in REDRAWN})


def rows_of(suite, spec_id, name):
    [check] = [c for c in suite.spec(spec_id).checks if c.name == name]
    return json.loads(check.table_file().read_text())["rows"]


def steps_run(rows):
    """The steps the driver's fast path runs for ``rows``, prefixes shared within its batches."""
    drv = difftable.driver_module()
    box = difftable.box_inputs({"module": "m", "rows": rows}, range(len(rows)))["rows"]
    return sum(len({p for row in batch for p in drv.prefixes(row, True)})
               for batch in drv.batches(box, difftable.STEPS_PER_FORK, share=True))


def test_bench_v6_is_the_default_suite(tmp_path):
    assert load_config(tmp_path, environ={}).suite == "bench-v6"


def test_bench_v6_keeps_bench_v5_word_for_word_but_the_redrawn_tables():
    assert [s.id for s in V6.specs] == [s.id for s in V5.specs]
    for a, b in zip(V5.specs, V6.specs):
        assert (a.app_slug, a.prompt, a.hard_prompt, a.starter) == (b.app_slug, b.prompt, b.hard_prompt, b.starter)
        assert [(r.id, r.text, r.inputs) for r in a.requirements] == [(r.id, r.text, r.inputs) for r in b.requirements]
        assert [(c.name, c.kind, c.hard_only, c.module, c.run) for c in a.checks] == \
            [(c.name, c.kind, c.hard_only, c.module, c.run) for c in b.checks]
        assert [m.name for m in V6.mutants(b)] == [m.name for m in V5.mutants(a)]
        for ref in sorted(V5.reference_dir(a).rglob("*.py")):
            assert (V6.reference_dir(b) / ref.relative_to(V5.reference_dir(a))).read_bytes() == ref.read_bytes()
        for c in (c for c in a.checks if c.kind in TABLE_KINDS):
            same = rows_of(V5, a.id, c.name) == rows_of(V6, b.id, c.name)
            assert same == ((a.id, c.name) not in REDRAWN), (a.id, c.name)
    assert V6.hash != V5.hash


@pytest.mark.parametrize(("spec_id", "name"), sorted(REDRAWN))
def test_a_redrawn_table_holds_five_times_bench_v3s_rows_at_under_two_steps_a_row(spec_id, name):
    """Every row of a redrawn table is a bench-v5 row word for word or a tree row (a bench-v5 spine's first steps,
    then a leaf); the table holds at least 5x bench-v3's rows of the same check, and the fast path runs fewer than
    2 steps a row (a prefix its rows share runs once), where bench-v3's and bench-v5's rows ran 2.3 to 9.2."""
    v3, v5, v6 = (rows_of(s, spec_id, name) for s in (V3, V5, V6))
    assert len(v6) >= 5 * len(v3)
    by_id = {r["id"]: r for r in v5}
    tree = [r for r in v6 if r["id"].startswith("tree-")]
    assert tree and all(by_id[r["id"]] == r for r in v6 if not r["id"].startswith("tree-"))
    assert len({r["id"] for r in v6}) == len(v6)
    run = steps_run(v6)
    assert run < sum(len(r["steps"]) for r in v6)  # a prefix rows share runs once
    assert run / len(v6) < 2.0 < min(steps_run(v3) / len(v3), steps_run(v5) / len(v5))  # bench-v3, v5: 2.3-9.2
    ends = {json.dumps([r.get("files_in"), r["steps"]]) for r in v6}
    assert not any(json.dumps([r.get("files_in"), r["steps"][:k]]) in ends  # no row repeats another whole
                   for r in v6 for k in range(1, len(r["steps"])))


def test_every_edge_class_is_still_sampled_and_broken_without_a_hole():
    cov = coverage(V6, [s.id for s in V6.specs])
    assert cov.problems == []
    assert {c.edge for c in cov.edges if c.rows} == {c.edge for c in coverage(V5, [s.id for s in V5.specs]).edges
                                                     if c.rows}


def test_bench_v6_is_frozen_as_verified():
    assert (V6.root / "suite.lock").read_text().strip() == V6.hash  # the hash `suite freeze` verified


@pytest.mark.slow  # every check of a spec in the check box
@pytest.mark.parametrize("spec_id", SPECS)
def test_an_app_written_from_the_prompt_alone_passes_every_redrawn_table(spec_id, tmp_path):
    """No false alarm from a tree row: a leaf moved to another state asks only what the prompt fixes there (the
    other checks are bench-v5's, which ``test_bench_v5`` grades the same app on)."""
    cfg = load_config(tmp_path / "home", environ={}, overrides={"checks.timeout": 180})
    ws = tmp_path / "ws"
    shutil.copytree(REPO_ROOT / "tests" / "fixtures" / INDEPENDENT[spec_id], ws)
    results = check_results([c for c in V6.spec(spec_id).checks if (spec_id, c.name) in REDRAWN], ws, cfg)
    assert results and {r.name: r.detail for r in results if not r.passed} == {}


@pytest.mark.slow
@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("spec_id", SPECS)
def test_a_correct_app_in_another_output_style_passes_every_redrawn_table(spec_id, style, tmp_path):
    cfg = load_config(tmp_path / "home", environ={}, overrides={"checks.timeout": 180})
    spec = V6.spec(spec_id)
    ws = materialize(V6, spec, tmp_path / spec_id)
    (ws / spec.app_slug / "__main__.py").write_text(STYLES[style].format(slug=spec.app_slug))
    results = check_results([c for c in spec.checks if (spec_id, c.name) in REDRAWN], ws, cfg)
    assert results and {r.name: r.detail for r in results if not r.passed} == {}


@pytest.mark.slow
def test_the_todokit_starter_answers_every_redrawn_old_behaviour_row_as_the_reference_does(tmp_path):
    """A tree row of the old commands asks only what the starter (a correct app for them) answers too."""
    cfg = load_config(tmp_path / "home", environ={}, overrides={"checks.timeout": 180})
    ws = tmp_path / "starter"
    seed_workspace(V6, V6.spec("extend"), ws)
    [res] = check_results([c for c in V6.spec("extend").checks if c.name == "old_behaviour"], ws, cfg)
    assert res.passed, res.detail
