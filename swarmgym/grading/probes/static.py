"""Static probes (``stdlib_only``, ``layout``, ``pure``): the workspace's files read and parsed here,
outside every box, with this interpreter's ``ast`` — nothing of the workspace is imported or run, so no
module of the app's can stand in for the parser.  Files are read through :mod:`swarmgym.trust.safefs`
(never through a link, never outside the workspace).
"""
from __future__ import annotations

import ast
import os
import sys
from pathlib import Path, PurePosixPath

from swarmgym.suitekit.probes import Probe
from swarmgym.trust import safefs

MAX_READ = 2 * 1024 * 1024  # bytes of each source file
MAX_SHOWN = 5
DYNAMIC_CALLS = ("open", "exec", "eval", "compile", "__import__")  # a pure module calls none of these


def _parse(ws: Path, rel: str) -> ast.Module | str:
    """The module's tree, or why there is none."""
    got = safefs.read_bytes(ws, rel, MAX_READ)
    if got is None:
        return f"{rel} is not a readable regular file"
    if got[1]:
        return f"{rel} is larger than {MAX_READ} bytes"
    try:
        return ast.parse(got[0], rel)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        return f"{rel} does not parse ({type(e).__name__}: {getattr(e, 'msg', e)})"


def imports(tree: ast.Module, rel: str) -> list[tuple[str, int]]:
    """(absolute dotted name, line) of every import in ``tree``: ``import X``; ``from X import y`` as ``X``
    and ``X.y`` (``y`` may be a submodule), relative ones resolved against ``rel``'s folder; and
    ``__import__("X")`` / ``importlib.import_module("X")`` with a literal name."""
    pkg = list(PurePosixPath(rel).parent.parts)
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = (node.module or "").split(".")
            else:
                base = pkg[:len(pkg) - (node.level - 1)] if node.level - 1 <= len(pkg) else []
                base += node.module.split(".") if node.module else []
            if node.module:
                out.append((".".join(base), node.lineno))
            out += [(".".join(base + [a.name]), node.lineno) for a in node.names if a.name != "*"]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in ("__import__", "import_module"):
                out.append((node.args[0].value, node.lineno))
    return out


def _once(found: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """One entry per top-level name and line (``from X import y`` is reported as ``X`` alone)."""
    seen: set[tuple[str, int]] = set()
    out = []
    for name, line in found:
        if (name.split(".")[0], line) not in seen:
            seen.add((name.split(".")[0], line))
            out.append((name, line))
    return out


def _sources(ws: Path, package: str) -> list[str] | str:
    """The package's ``.py`` files, or why the probe cannot read them all: a link, a FIFO, a folder it
    cannot open or more files than it reads would leave code unread that Python would import."""
    listing = safefs.list_files(ws, under=package)
    if listing.problems or listing.truncated:
        return f"{package} cannot be read whole ({(listing.problems or ['more files than a probe reads'])[0]})"
    if listing.skipped:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(listing.skipped.items()))
        return f"{package} holds what is no regular file or folder ({kinds}): a probe reads only the package's own files"
    if not listing.files:
        return f"no package folder {package} (or no file in it)"
    files = [f.rel for f in listing.files if f.rel.endswith(".py")]
    return files or f"no .py file under {package}"


def stdlib_only(ws: Path, probe: Probe) -> tuple[bool, str]:
    package = str(probe.package)
    files = _sources(ws, package)
    if isinstance(files, str):
        return False, files
    top = PurePosixPath(package)
    allowed = set(sys.stdlib_module_names) | {top.name, top.parts[0], *(probe.allow or [])}
    bad = []
    for rel in files:
        tree = _parse(ws, rel)
        if isinstance(tree, str):
            return False, tree
        bad += [f"{rel}:{line}: import {name}" for name, line in _once(imports(tree, rel))
                if name.split(".")[0] not in allowed]
    if bad:
        return False, f"{len(bad)} import(s) outside the standard library: " + "; ".join(bad[:MAX_SHOWN])
    return True, f"{len(files)} file(s) of {package} import only the standard library and {package}"


def layout(ws: Path, probe: Probe) -> tuple[bool, str]:
    wanted = list(probe.files or [])
    missing = [p for p in wanted if not safefs.glob(ws, p)]
    if missing:
        return False, "missing: " + ", ".join(missing)
    return True, f"{len(wanted)}/{len(wanted)} paths exist"


def _module_file(ws: Path, name: str, package: str) -> str | None:
    """The workspace file of the package module ``name`` (dotted), if it is one."""
    top = PurePosixPath(package)
    parts = name.split(".")
    if parts[0] != top.name:
        return None
    base = "/".join([*top.parent.parts, *parts]) if str(top.parent) != "." else "/".join(parts)
    for rel in (base + ".py", base + "/__init__.py"):
        if safefs.is_file(ws, rel) or os.path.lexists(ws / rel):  # a link is returned too: reading it fails
            return rel
    return None


def _impure(tree: ast.Module, rel: str, forbid: set[str]) -> list[str]:
    found = [f"imports {name} (line {line})" for name, line in _once(imports(tree, rel))
             if name.split(".")[0] in forbid | {"importlib"}]
    found += [f"calls {n.func.id}() (line {n.lineno})" for n in ast.walk(tree)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in DYNAMIC_CALLS]
    return found


def pure(ws: Path, probe: Probe) -> tuple[bool, str]:
    """The module, and with ``package`` every module of the package it imports (transitively; a package's
    ``__init__`` is not followed), imports nothing in ``forbid`` nor ``importlib`` and calls no
    open/exec/eval/compile/__import__."""
    forbid, package = set(probe.forbid or []), probe.package
    todo, seen, via = [str(probe.module)], set(), {str(probe.module): str(probe.module)}
    while todo:
        rel = todo.pop(0)
        if rel in seen:
            continue
        seen.add(rel)
        tree = _parse(ws, rel)
        if isinstance(tree, str):
            return False, tree
        if problems := _impure(tree, rel, forbid):
            return False, f"{via[rel]} {'; '.join(problems[:MAX_SHOWN])}"
        for name, _ in imports(tree, rel) if package else []:
            dep = _module_file(ws, name, str(package))
            if dep is not None and dep not in seen and not dep.endswith("__init__.py"):
                via.setdefault(dep, f"{via[rel]} -> {dep}")  # (a package's __init__ runs for every module
                todo.append(dep)                              # of it: not this module's own import)
    return True, f"{len(seen)} module(s) checked: no {', '.join(sorted(forbid))} import, no open/exec/eval"


STATIC = {"stdlib_only": stdlib_only, "layout": layout, "pure": pure}
