"""Two import rules older than the layer table (tests/test_layers.py checks the rest)."""
from __future__ import annotations

from tests.support.layers import imports


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), list(graph[start])
    while todo:
        m = todo.pop()
        if m == goal:
            return True
        if m not in seen:
            seen.add(m)
            todo += graph.get(m, ())
    return False


def test_config_is_in_no_import_cycle():
    graph = imports()
    back = sorted(m for m in graph["swarmgym.config"] if _reaches(graph, m, "swarmgym.config"))
    assert not back, f"swarmgym.config imports {back}, which import it back"


def test_secret_rules_depend_on_nothing_else_in_swarmgym():
    assert imports()["swarmgym.trust.secrets"] == set()
