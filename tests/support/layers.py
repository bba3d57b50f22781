"""The import graph of swarmgym and the layer table it must keep (docs/architecture.md section 11).

Every ``import`` and ``from … import`` of a ``swarmgym`` module counts, wherever it stands (module level or
inside a function), except under ``if TYPE_CHECKING:``.  Importing ``a.b.c`` from outside the package ``a.b``
also counts as importing ``a.b`` itself: Python runs ``a/b/__init__.py`` first.

The layers are the table in section 11 of docs/architecture.md, read here as data: one row per layer, bottom
first; its ``modules`` column names files (``__main__.py``, ``sim/cli.py``) and packages (``grading/``) relative to
``swarmgym/`` (``workers/`` is the repo folder installed as ``swarmgym.workers``).  A module belongs to the
row of its most specific entry.  A module may import from its own layer and the layers below it: an import of
a module in a higher layer is an *upward arrow*; a set of modules that import each other (directly or round
about) is a *cycle*.

``python -m tests.support.layers [ARCHITECTURE.md]`` prints the cycles and upward arrows with their counts.
"""
from __future__ import annotations

import ast
import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ARCHITECTURE = REPO / "docs" / "architecture.md"
SECTION = "## 11. Layers"
#: where each importable package lives in the repo (``workers/`` installs as ``swarmgym.workers``)
ROOTS = {"swarmgym": REPO / "swarmgym", "swarmgym.workers": REPO / "workers"}


def modules() -> dict[str, Path]:
    """Every module of swarmgym by dotted name (a package by its own name, for its ``__init__.py``)."""
    mods: dict[str, Path] = {}
    for pkg, base in ROOTS.items():
        for p in sorted(base.rglob("*.py")):
            rel = p.relative_to(base).with_suffix("").parts
            if "__pycache__" in rel:
                continue
            mods[".".join([pkg, *[x for x in rel if x != "__init__"]])] = p
    return mods


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    return {id(n) for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}


@functools.lru_cache(maxsize=1024)
def _imported_names(path: Path, mtime_ns: int, own_pkg: str) -> tuple[str, ...]:
    """The dotted names one file imports (``from a import b`` gives ``a.b``), TYPE_CHECKING ones left out."""
    tree = ast.parse(path.read_text(), str(path))
    skip = _type_checking_nodes(tree)
    names: list[str] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = own_pkg.split(".")[: len(own_pkg.split(".")) - (node.level - 1)]
                base = ".".join([*up, *([base] if base else [])])
            names += [f"{base}.{a.name}" for a in node.names]
    return tuple(names)


def imports(mods: dict[str, Path] | None = None) -> dict[str, set[str]]:
    """module -> the swarmgym modules it imports (see the module docstring for what counts)."""
    mods = mods if mods is not None else modules()
    packages = {m for m, p in mods.items() if p.name == "__init__.py"}

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for mod, path in mods.items():
        own_pkg = mod if mod in packages else mod.rpartition(".")[0]
        names = _imported_names(path, path.stat().st_mtime_ns, own_pkg)
        deps: set[str] = set()
        for name in names:
            target = resolve(name)
            if target is None:
                continue
            deps.add(target)
            parts = target.split(".")
            for i in range(2, len(parts)):  # the packages Python runs first (not the importer's own)
                parent = ".".join(parts[:i])
                if parent in packages and not (own_pkg == parent or own_pkg.startswith(parent + ".")):
                    deps.add(parent)
        graph[mod] = deps - {mod}
    return graph


@dataclass(frozen=True)
class Layer:
    index: int  # 0 = the bottom row
    name: str
    entries: tuple[str, ...]  # as the table writes them: "__main__.py", "grading/", "sim/cli.py"


def _entry_module(entry: str) -> str:
    """``grading/`` -> ``swarmgym.grading``; ``sim/cli.py`` -> ``swarmgym.sim.cli``; ``workers/tasks.py`` ->
    ``swarmgym.workers.tasks``; ``__init__.py`` -> ``swarmgym``."""
    parts = [p for p in entry.removesuffix("/").removesuffix(".py").split("/") if p and p != "__init__"]
    return ".".join(["swarmgym", *parts])


def layer_table(path: Path = ARCHITECTURE) -> list[Layer]:
    """The rows of the layer table in section 11 of ``path``, bottom first."""
    text = path.read_text()
    start = text.index(SECTION)
    rows: list[Layer] = []
    for line in text[start:].splitlines()[1:]:
        if line.startswith("## "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) < 3 or cells[0] in ("layer", "") or set(cells[0]) <= {"-", ":"}:
            continue
        entries = tuple(e for e in re.findall(r"`([^`]+)`", cells[1]) if e.endswith((".py", "/")))
        rows.append(Layer(len(rows), cells[0], entries))
    if not rows:
        raise ValueError(f"{path}: no layer table under {SECTION!r}")
    return rows


def layer_of(layers: list[Layer], mods: dict[str, Path] | None = None) -> dict[str, Layer]:
    """module -> its layer (the row of its most specific entry); modules no row names are left out."""
    mods = mods if mods is not None else modules()
    by_entry: dict[str, Layer] = {}
    for layer in layers:
        for e in layer.entries:
            by_entry[_entry_module(e) + ("/" if e.endswith("/") else "")] = layer
    out: dict[str, Layer] = {}
    for mod in mods:
        if mod in by_entry:
            out[mod] = by_entry[mod]
            continue
        parts = mod.split(".")
        for i in range(len(parts), 0, -1):
            hit = by_entry.get(".".join(parts[:i]) + "/")
            if hit is not None:
                out[mod] = hit
                break
    return out


def unknown_entries(layers: list[Layer], mods: dict[str, Path] | None = None) -> list[str]:
    """Entries of the table that name no module or package (a renamed file the table still lists)."""
    mods = mods if mods is not None else modules()
    return [e for layer in layers for e in layer.entries if _entry_module(e) not in mods]


def cycles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The import cycles: each set of modules that reach each other (Tarjan's strongly connected
    components of more than one module), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[tuple[str, ...]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(tuple(sorted(comp)))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(out)


def upward(graph: dict[str, set[str]], where: dict[str, Layer]) -> list[tuple[str, str]]:
    """The imports ``(importer, imported)`` whose target sits in a higher layer than the importer."""
    return sorted((a, b) for a, deps in graph.items() for b in deps
                  if a in where and b in where and where[b].index > where[a].index)


def main(argv: list[str]) -> int:
    doc = Path(argv[0]) if argv else ARCHITECTURE
    mods = modules()
    graph = imports(mods)
    layers = layer_table(doc)
    where = layer_of(layers, mods)
    found_cycles, arrows = cycles(graph), upward(graph, where)
    missing = sorted(set(mods) - set(where))
    print(f"{len(mods)} modules, {sum(len(d) for d in graph.values())} imports, {len(layers)} layers "
          f"({doc} section 11)\n")
    print(f"{'cycles':<16}{len(found_cycles):>5}")
    for c in found_cycles:
        print(f"    {' <-> '.join(m.removeprefix('swarmgym.') for m in c)}")
    print(f"{'upward arrows':<16}{len(arrows):>5}")
    for a, b in arrows:
        print(f"    {a.removeprefix('swarmgym.')} ({where[a].name}) -> {b.removeprefix('swarmgym.')} ({where[b].name})")
    print(f"{'without a layer':<16}{len(missing):>5}")
    for m in missing:
        print(f"    {m}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
