"""bench-v5's shared edge classes on crud, txn and money (issue 30): for each class a buggy app (the suite's edge
mutant: a copy of the reference with the one bug) that bench-v3 passes and bench-v5's new ``edge-*`` rows fail.
The reference passing every new row when it prints through ``sys.stdout.buffer``: tests/suites/test_bench_v5.py
``test_a_correct_app_in_another_output_style_passes_every_row_of_bench_v4_and_bench_v5`` (every row of every
``rows`` check, in that style and another); the independent apps written from the prompts alone passing them:
``test_an_app_written_from_the_prompt_alone_passes_every_check_of_bench_v5`` there (every check)."""
from __future__ import annotations

import json

import pytest

from swarmgym import REPO_ROOT
from swarmgym.config import load_config
from swarmgym.suitekit.suite import Check, load_suite, materialize
from tests.support.benches import INDEPENDENT, failed_checks, row_ids

V3 = load_suite("bench-v3", REPO_ROOT / "suites")
V5 = load_suite("bench-v5", REPO_ROOT / "suites")

#: (spec, table check, edge mutant) -> (the edge class whose new rows kill it, a new row of that class it fails)
BUGS = {
    ("crud", "golden_table", "update-qty-float"): ("error_reach", "edge-qty-not-integer"),
    ("crud", "golden_table", "stock-qty-float"): ("number_form", "edge-qty-not-integer"),
    ("crud", "golden_table", "sku-nocase"): ("case", "edge-sku-case"),
    ("crud", "golden_table", "sku-stripped"): ("line_end", "edge-sku-trailing-newline"),
    ("crud", "golden_table", "name-collapses-space"): ("unicode_space", "edge-name-inner-space"),
    ("txn", "golden_table", "script-lowercased"): ("case", "edge-case-kept"),
    ("txn", "golden_table", "blank-line-when-silent"): ("empty_output", "edge-no-output"),
    ("txn", "hard_golden_table", "incr-isdigit-then-int"): ("unicode_digit", "edge-incr-superscript"),
    ("txn", "hard_golden_table", "incr-amount-float"): ("number_form", "edge-incr-amount-form"),
    ("money", "golden_table", "amount-two-decimals-only"): ("example", "edge-example-amounts"),
    ("money", "golden_table", "amount-isdigit"): ("unicode_digit", "edge-unicode-digits"),
    ("money", "golden_table", "weight-isdigit"): ("unicode_digit", "edge-unicode-digits"),
    ("money", "golden_table", "exact-part-decimal"): ("number_form", "edge-bad-exact-parts"),
    ("money", "golden_table", "split-names-unchecked"): ("error_reach", "edge-unknown-in-every-split"),
    ("money", "golden_table", "split-names-unstripped"): ("line_end", "edge-split-name-newline"),
    ("money", "golden_table", "name-collapses-space"): ("unicode_space", "edge-inner-unicode-space"),
    ("money", "golden_table", "blank-line-when-empty"): ("empty_output", "edge-nothing-to-list"),
    ("money", "golden_table", "settle-tie-casefold"): ("ties", "edge-settle-ties-code-point"),
    ("money", "golden_table", "known-casefold-fallback"): ("case", "edge-name-case-kept"),
}
ALT = {"crud": "alt_apps/invtrack", "txn": "alt_apps/txkvbench", "money": "alt_apps_v3/splitpay"}


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={}, overrides={"checks.timeout": 180})


def _edge_rows(check: Check) -> list[dict]:
    return [r for r in json.loads(check.table_file().read_text())["rows"] if r["id"].startswith("edge-")]


def test_every_new_edge_mutant_is_declared_with_its_class_and_every_class_has_rows():
    for (spec_id, check, name), (edge, row) in BUGS.items():
        spec = V5.spec(spec_id)
        [m] = [m for m in V5.mutants(spec) if m.name == name]
        assert m.edge == edge
        assert any(edge in r.get("edges", []) for c in spec.checks if c.kind == "rows" for r in _edge_rows(c))
        [c] = [c for c in spec.checks if c.name == check]
        assert edge in {r["id"]: r for r in _edge_rows(c)}[row]["edges"], name  # the row named samples the class
    for spec_id, n in {"crud": 1, "txn": 2, "money": 2}.items():  # the checks holding new rows
        assert len([c for c in V5.spec(spec_id).checks if c.kind == "rows" and _edge_rows(c)]) == n
    assert all(INDEPENDENT[spec_id] == path for spec_id, path in ALT.items())  # graded on every check there


@pytest.mark.slow
@pytest.mark.parametrize("spec_id,check,mutant", sorted(BUGS))
def test_a_bug_of_each_shared_edge_class_passes_bench_v3_and_fails_the_new_rows(spec_id, check, mutant, cfg,
                                                                                 tmp_path):
    """Every row of bench-v3's check passes it; the new row named fails it (and so bench-v5's check: each row
    runs in its own folder, and a row that fails alone fails its table)."""
    [m] = [m for m in V5.mutants(V5.spec(spec_id)) if m.name == mutant]
    ws = materialize(V5, V5.spec(spec_id), tmp_path / mutant, m)
    assert failed_checks(V3, spec_id, [check], ws, cfg) == {}
    row = BUGS[(spec_id, check, mutant)][1]
    failed = failed_checks(V5, spec_id, [check], ws, cfg, row_filter=row_ids(row))
    assert list(failed) == [check] and failed[check].startswith(f"1/1 golden rows differ: {row} `")
