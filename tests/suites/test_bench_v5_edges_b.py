"""bench-v5's shared edge classes on compute, extend and convert (issue #30): for each class a bug written from
the prompt (the spec's edge mutant) that bench-v3 passes and bench-v5's new rows fail; the todokit starter (on the
old commands) passes every new row.  The reference printing through ``sys.stdout.buffer`` passing every new row:
tests/suites/test_bench_v5.py ``test_a_correct_app_in_another_output_style_passes_every_row_of_bench_v4_and_bench_v5``
(every row of every ``rows`` check)."""
from __future__ import annotations

import importlib
import json
import sys

import pytest

from swarmgym.config import load_config
from swarmgym.suitekit.suite import materialize, seed_workspace
from tests.support.benches import V3, V5, failed_checks, row_ids

GEN = V5.folder / "gen"

#: mutant -> (spec, the check holding the rows that kill it, one such row); bench-v3's check of that name passes it
BUGS = {
    "crlf-after-quote-rejected": ("convert", "golden_table", "crlf-after-quote"),          # line_end
    "stats-stdin-keeps-bom": ("convert", "hard_golden_table", "stats-bom-stdin"),          # line_end (stats)
    "lone-empty-field-quoted": ("convert", "golden_table", "csv-lone-empty-field"),        # empty_output
    "output-then-empty-line": ("convert", "golden_table", "csv-empty-array-output"),       # empty_output
    "unicode-digit-numbers": ("convert", "golden_table", "unicode-digits-stay-strings"),   # unicode_digit
    "thousands-separator-int": ("convert", "golden_table", "prompt-string-examples"),      # example
    "stats-delimiter-unchecked": ("convert", "hard_golden_table", "stats-delimiter-bad"),  # error_reach
    "header-names-stripped": ("convert", "golden_table", "unicode-spaces-kept"),           # unicode_space
    "edit-priority-unchecked": ("extend", "hard_golden_table", "edit-bad-values"),         # error_reach
    "edit-due-format-only": ("extend", "hard_golden_table", "edit-due-calendar"),          # calendar
    "leap-every-fourth-year": ("extend", "golden_table", "due-century-leap"),              # calendar
    "sort-ties-in-file-order": ("extend", "golden_table", "ties-by-id-from-an-unordered-file"),  # ties
    "priority-filter-casefold": ("extend", "golden_table", "list-priority-case"),          # case
    "blank-ascii-whitespace": ("extend", "old_behaviour", "blank-unicode-spaces"),         # unicode_space
    "date-dollar-anchor": ("extend", "golden_table", "due-tag-line-end"),                  # line_end
    "search-words-stripped": ("extend", "golden_table", "search-words-as-typed"),          # line_end
    "tag-isdigit": ("extend", "golden_table", "tag-unicode-digits"),                       # unicode_digit
    "id-ascii-digits-only": ("extend", "old_behaviour", "id-number-forms"),                # number_form
    "unary-plus": ("compute", "golden_table", "no-unary-plus"),                            # number_form
    "whitespace-no-cr": ("compute", "golden_table", "cr-is-whitespace"),                   # line_end
    "names-casefold": ("compute", "hard_golden_table", "names-keep-case"),                 # case
}
SLUGS = {"convert": "tabconv", "extend": "todokit", "compute": "rdcalc"}


def _new_rows(slug: str) -> dict[str, list[dict]]:
    sys.path.insert(0, str(GEN))
    try:
        return importlib.import_module(f"edges_{slug}").ROWS
    finally:
        sys.path.remove(str(GEN))


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={}, overrides={"checks.timeout": 180})


@pytest.mark.parametrize("spec_id", sorted(SLUGS))
def test_every_new_edge_row_is_frozen_and_each_class_it_samples_has_a_mutant_that_bench_v3_lets_pass(spec_id):
    spec = V5.spec(spec_id)
    classes = set()
    for table, rows in _new_rows(SLUGS[spec_id]).items():
        frozen = {r["id"]: r for r in json.loads((V5.folder / "tables" / f"{table}.json").read_text())["rows"]}
        for r in rows:
            assert frozen[r["id"]]["edges"] == r["edges"] and [s["argv"] for s in frozen[r["id"]]["steps"]] == \
                [s["argv"] for s in r["steps"]], (table, r["id"])
            classes |= set(r["edges"])
    edges_of = {m.name: m.edge for m in V5.mutants(spec)}
    assert classes == {edges_of[m] for m, (s, _, _) in BUGS.items() if s == spec_id}
    assert not {m.name for m in V3.mutants(V3.spec(spec_id))} & {m for m, (s, _, _) in BUGS.items() if s == spec_id}
    for mutant, (s, check, row_id) in BUGS.items():  # the row named to kill each is a row of its check
        if s == spec_id:
            [c] = [c for c in spec.checks if c.name == check]
            rows = {r["id"]: r for r in json.loads(c.table_file().read_text())["rows"]}
            assert edges_of[mutant] in rows[row_id]["edges"], mutant


@pytest.mark.slow
@pytest.mark.parametrize("mutant", sorted(BUGS))
def test_a_bug_of_each_shared_edge_class_passes_bench_v3_and_fails_bench_v4_on_the_new_rows(mutant, cfg, tmp_path):
    spec_id, check, row_id = BUGS[mutant]
    [m] = [m for m in V5.mutants(V5.spec(spec_id)) if m.name == mutant]
    ws = materialize(V5, V5.spec(spec_id), tmp_path / mutant, m)
    assert failed_checks(V3, spec_id, [check], ws, cfg) == {}
    # the row named fails it, and so bench-v5's check (each row runs in its own folder: a row failing alone fails
    # its table)
    failed = failed_checks(V5, spec_id, [check], ws, cfg, row_filter=row_ids(row_id))
    assert list(failed) == [check] and failed[check].startswith(f"1/1 golden rows differ: {row_id} `")


@pytest.mark.slow
def test_the_todokit_starter_answers_the_new_old_behaviour_rows_as_the_reference_does(cfg, tmp_path):
    """The starter is a correct app for the old commands: the unicode_space and number_form rows are its answers."""
    ws = tmp_path / "starter"
    seed_workspace(V5, V5.spec("extend"), ws)
    assert (ws / "todokit" / "cli.py").is_file()
    assert failed_checks(V5, "extend", ["old_behaviour"], ws, cfg) == {}
