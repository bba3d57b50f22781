"""The layers of docs/architecture.md section 11 hold for every import (tests/support/layers.py says what counts).

The table in the docs is the data: a module no row names, an import cycle, or an import of a higher layer
fails here with the modules involved.  ``python -m tests.support.layers`` prints the whole picture.
"""
from __future__ import annotations

import pytest

from tests.support import layers

#: What issue #23 found when the table became a test.  These lists may only shrink: a listed cycle or arrow
#: that is gone fails too (remove it here), and anything new fails at once.
KNOWN_CYCLES: set[tuple[str, ...]] = {
    tuple(f"swarmgym.{m}" for m in c) for c in (
    )
}
KNOWN_UPWARD: set[tuple[str, str]] = {
    (f"swarmgym.{a}", f"swarmgym.{b}") for a, b in (
    )
}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return layers.imports()


@pytest.fixture(scope="module")
def table() -> list[layers.Layer]:
    return layers.layer_table()


def test_every_module_sits_in_exactly_one_row_of_the_layer_table(table):
    where = layers.layer_of(table)
    missing = sorted(set(layers.modules()) - set(where))
    assert not missing, (f"modules no row of the layer table names: {missing}; add each to the row of "
                         f"docs/architecture.md section 11 it belongs to")
    entries = [e for row in table for e in row.entries]
    assert len(entries) == len(set(entries)), f"a module or package is named in two rows: {sorted(entries)}"
    assert not layers.unknown_entries(table), "the layer table names files that do not exist"


def test_no_import_cycle_beyond_the_known_ones(graph):
    found = set(layers.cycles(graph))
    new = sorted(found - KNOWN_CYCLES)
    assert not new, "import cycles (each set imports itself round about): " + "; ".join(" <-> ".join(c) for c in new)
    gone = sorted(KNOWN_CYCLES - found)
    assert not gone, f"fixed: remove these from KNOWN_CYCLES in tests/test_layers.py: {gone}"


def test_no_module_imports_a_higher_layer_beyond_the_known_ones(graph, table):
    where = layers.layer_of(table)
    found = set(layers.upward(graph, where))
    new = sorted(found - KNOWN_UPWARD)
    assert not new, "imports of a higher layer: " + "; ".join(
        f"{a} ({where[a].name}) -> {b} ({where[b].name})" for a, b in new)
    gone = sorted(KNOWN_UPWARD - found)
    assert not gone, f"fixed: remove these from KNOWN_UPWARD in tests/test_layers.py: {gone}"


def test_the_graph_counts_imports_inside_functions_and_packages_run_first_but_not_type_checking_ones(graph):
    # swarmgym.job imports the adapters inside run_job, and swarmgym.reports.session: the package runs first
    assert {"swarmgym.adapters", "swarmgym.reports.session", "swarmgym.reports"} <= graph["swarmgym.job"]
    # swarmgym.reports.compare_page names swarmgym.config only under TYPE_CHECKING
    assert "swarmgym.config" not in graph["swarmgym.reports.compare_page"]


def test_a_new_upward_import_is_caught(tmp_path, table):
    """What a contributor sees the moment they import upward: the arrow, with both layers."""
    mods = layers.modules()
    fake = tmp_path / "errors.py"
    fake.write_text("def f():\n    from swarmgym.cli import main\n")
    graph = layers.imports({**mods, "swarmgym.errors": fake})
    arrows = layers.upward(graph, layers.layer_of(table, mods))
    assert ("swarmgym.errors", "swarmgym.cli") in arrows
