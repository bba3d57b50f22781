"""The import graph: config sits below everything that reads it (no import cycle through it)."""
from __future__ import annotations

import ast
from pathlib import Path

from swarmgym.config import REPO_ROOT


def _modules() -> dict[str, Path]:
    mods = {}
    for base, pkg in ((REPO_ROOT / "swarmgym", "swarmgym"), (REPO_ROOT / "workers", "swarmgym.workers")):
        for p in base.rglob("*.py"):
            parts = [pkg, *[x for x in p.relative_to(base).with_suffix("").parts if x != "__init__"]]
            mods[".".join(parts)] = p
    return mods


def _graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Every import, function-level ones included; those under ``if TYPE_CHECKING`` are not imports."""
    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for mod, path in mods.items():
        tree = ast.parse(path.read_text())
        skip = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                for n in ast.walk(node)}
        deps: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                deps |= {r for a in node.names if (r := resolve(a.name))}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                deps |= {r for a in node.names if (r := resolve(f"{node.module}.{a.name}"))}
        graph[mod] = deps - {mod}
    return graph


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
    graph = _graph(_modules())
    back = sorted(m for m in graph["swarmgym.config"] if _reaches(graph, m, "swarmgym.config"))
    assert not back, f"swarmgym.config imports {back}, which import it back"


def test_secret_rules_depend_on_nothing_else_in_swarmgym():
    graph = _graph(_modules())
    assert graph["swarmgym.secrets"] == set()
