"""The layers of docs/architecture.md section 11 hold for every import (tests/support/layers.py says what counts).

The table in the docs is the data: a module no row names, an import cycle, or an import of a higher layer
fails here with the modules involved.  ``python -m tests.support.layers`` prints the whole picture.
"""
from __future__ import annotations

import pytest

from tests.support import layers


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


def test_no_import_cycle(graph):
    found = layers.cycles(graph)
    assert not found, "import cycles (each set imports itself round about): " + "; ".join(
        " <-> ".join(c) for c in found)


def test_no_module_imports_a_higher_layer(graph, table):
    where = layers.layer_of(table)
    found = layers.upward(graph, where)
    assert not found, "imports of a higher layer: " + "; ".join(
        f"{a} ({where[a].name}) -> {b} ({where[b].name})" for a, b in found)


def test_the_graph_counts_imports_inside_functions_and_packages_run_first_but_not_type_checking_ones(graph):
    # swarmgym.campaigns.job imports the adapters inside run_job, and swarmgym.reports.session: the package runs first
    assert {"swarmgym.adapters", "swarmgym.reports.session", "swarmgym.reports"} <= graph["swarmgym.campaigns.job"]
    # swarmgym.reports.compare_page names swarmgym.config only under TYPE_CHECKING
    assert "swarmgym.config" not in graph["swarmgym.reports.compare_page"]


def test_a_new_upward_import_is_caught(tmp_path, table):
    """What a contributor sees the moment they import upward: the arrow, with both layers."""
    mods = layers.modules()
    fake = tmp_path / "errors.py"
    fake.write_text("def f():\n    from swarmgym.cli import main\n")
    graph = layers.imports({**mods, "swarmgym.core.errors": fake})
    arrows = layers.upward(graph, layers.layer_of(table, mods))
    assert ("swarmgym.core.errors", "swarmgym.cli") in arrows


def test_a_new_cycle_is_caught(tmp_path):
    """An import back into a module that imports you, even inside a function, is a cycle."""
    mods = layers.modules()
    fake = tmp_path / "names.py"
    fake.write_text("def f():\n    from swarmgym.queue.routing import variant_queue\n")
    graph = layers.imports({**mods, "swarmgym.core.names": fake})
    assert ("swarmgym.core.names", "swarmgym.queue.routing") in layers.cycles(graph)
