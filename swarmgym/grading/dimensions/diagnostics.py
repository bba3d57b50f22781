"""diagnostics: narration tasks from the traces, and what the built code does — not the words in it.

Narration = a task reported done with zero tool calls (it talked instead of acting).
Blockers (status fail):
- a stub that is *reached*: a golden check's traceback ends in ``NotImplementedError`` raised from a
  workspace file;
- a placeholder nothing replaces: a Python function whose whole body is ``raise NotImplementedError``
  (docstring allowed) that is neither abstract (``@abstractmethod``, a ``Protocol``) nor overridden
  by a subclass in the workspace — the usual abstract-method idiom is not a stub;
- a ``breakpoint()`` / ``pdb`` call left in.
Smells (partial): ``TODO``/``FIXME``/``XXX``, and ``NotImplementedError`` raised on a path of a real
function that no check reached.

Only the workspace's own regular source files are read (:mod:`swarmgym.trust.safefs`: never a link, a FIFO
or a device), the first ``MAX_BYTES`` of each.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from swarmgym.grading.context import GradingContext
from swarmgym.models import CheckResult, DimensionResult, Evidence, Finding, Status
from swarmgym.trust import safefs

SKIP_DIRS = {".swarm", "__pycache__", ".git", ".venv", "venv", "node_modules", ".pytest_cache", ".mypy_cache"}
SOURCE_EXT = {".py", ".js", ".ts", ".rs", ".go", ".rb", ".sh"}
MAX_FILES, MAX_BYTES = 500, 512 * 1024
HINTS = {
    "reached stub": "a golden check ran into NotImplementedError: implement that code path",
    "placeholder": "implement it, or make it abstract (@abstractmethod) if subclasses must provide it",
    "breakpoint": "remove the breakpoint call: the app hangs waiting for a debugger",
    "pdb": "remove the pdb call",
}
SMELL = re.compile(r"\b(TODO|FIXME|XXX)\b")
FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
NOT_IMPLEMENTED = ("NotImplementedError", "NotImplemented")


def source_files(ws: Path) -> list[str]:
    """Workspace-relative paths of the source files to scan: regular files only, never through a link
    (:mod:`swarmgym.trust.safefs`), hidden and cache folders skipped, at most ``MAX_FILES``."""
    return [f.rel for f in safefs.list_files(ws, max_files=MAX_FILES, skip_dirs=SKIP_DIRS, skip_hidden_dirs=True,
                                             suffixes=SOURCE_EXT).files]


def _raises_not_implemented(node: ast.AST) -> bool:
    if not isinstance(node, ast.Raise) or node.exc is None:
        return False
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return isinstance(exc, ast.Name) and exc.id in NOT_IMPLEMENTED


def _is_placeholder(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = list(fn.body)
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        body = body[1:]
    return len(body) == 1 and _raises_not_implemented(body[0])


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    return ""


def _abstract(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(_name(d) in ("abstractmethod", "abstractproperty", "overload") for d in fn.decorator_list)


class _Module:
    """One parsed Python file: its classes (bases, methods), placeholders and debugger calls."""

    def __init__(self, rel: str, tree: ast.Module) -> None:
        self.rel = rel
        self.classes: dict[str, tuple[list[str], set[str]]] = {}
        self.placeholders: list[tuple[str | None, str, int]] = []  # (class, function, line)
        self.raises: list[tuple[str, int]] = []  # NotImplementedError inside a real function body
        self.debug: list[tuple[str, int, str]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                methods = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
                bases = [_name(b) for b in node.bases]
                self.classes[node.name] = (bases, methods)
                protocol = "Protocol" in bases
                for n in node.body:
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_placeholder(n) \
                            and not _abstract(n) and not protocol:
                        self.placeholders.append((node.name, n.name, n.body[-1].lineno))
            elif isinstance(node, ast.Call):
                callee = node.func
                if isinstance(callee, ast.Name) and callee.id == "breakpoint":
                    self.debug.append(("breakpoint", node.lineno, "breakpoint()"))
                elif isinstance(callee, ast.Attribute) and callee.attr == "set_trace" and _name(callee.value) == "pdb":
                    self.debug.append(("pdb", node.lineno, "pdb.set_trace()"))
        for node in tree.body:  # module-level functions
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_placeholder(node) \
                    and not _abstract(node):
                self.placeholders.append((None, node.name, node.body[-1].lineno))
        placeholder_lines = {line for _c, _f, line in self.placeholders}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_placeholder(node):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Raise) and _raises_not_implemented(sub) \
                            and sub.lineno not in placeholder_lines:
                        self.raises.append((node.name, sub.lineno))


def _overridden(cls: str, method: str, classes: dict[str, tuple[list[str], set[str]]]) -> bool:
    """Does any class deriving (transitively, by name) from ``cls`` define ``method``?"""
    children: dict[str, list[str]] = {}
    for name, (bases, _m) in classes.items():
        for b in bases:
            children.setdefault(b, []).append(name)
    todo, seen = list(children.get(cls, [])), set()
    while todo:
        c = todo.pop()
        if c in seen:
            continue
        seen.add(c)
        if method in classes.get(c, ([], set()))[1]:
            return True
        todo += children.get(c, [])
    return False


Row = dict[str, Any]


def reached_stubs(results: list[CheckResult], files: list[str]) -> list[Row]:
    """Workspace stubs a check's traceback ends in (the last frame before ``NotImplementedError``)."""
    out: list[Row] = []
    for r in results:
        for text in (r.stderr_tail, r.stdout_tail):
            lines = (text or "").splitlines()
            for i, line in enumerate(lines):
                if not line.strip().startswith(NOT_IMPLEMENTED):
                    continue
                frames = [FRAME.search(x) for x in lines[:i]]
                last = next((m for m in reversed(frames) if m), None)
                if last is None:
                    continue
                path = last.group(1).replace("\\", "/")
                rel = next((f for f in files if path == f or path.endswith("/" + f)), None)
                if rel is not None:
                    out.append({"file": rel, "line": int(last.group(2)), "what": "reached stub",
                                "text": f"{last.group(3)}: {line.strip()[:120]} (check {r.name!r})"})
    return list({(b["file"], b["line"]): b for b in out}.values())


def scan(ws: Path, results: list[CheckResult] | None = None) -> tuple[list[Row], list[Row]]:
    """Return (blockers, smells) as {file, line, what, text} rows."""
    blockers: list[Row] = []
    smells: list[Row] = []
    modules: list[_Module] = []
    rels = source_files(ws)
    for rel in rels:
        text = safefs.read_text(ws, rel, MAX_BYTES)
        if text is None:
            continue
        for n, src in enumerate(text.splitlines(), 1):
            m = SMELL.search(src)
            if m:
                smells.append({"file": rel, "line": n, "what": m.group(1), "text": src.strip()[:160]})
        if rel.endswith(".py"):
            try:
                modules.append(_Module(rel, ast.parse(text)))
            except (SyntaxError, ValueError, RecursionError, MemoryError):  # nested past what the parser takes
                continue
    reached = reached_stubs(results or [], rels)
    blockers += reached
    seen = {(b["file"], b["line"]) for b in reached}
    classes: dict[str, tuple[list[str], set[str]]] = {}
    for mod in modules:
        classes.update(mod.classes)
    for mod in modules:
        for cls, fn, line in mod.placeholders:
            if (mod.rel, line) in seen or (cls is not None and _overridden(cls, fn, classes)):
                continue
            where = f"{cls}.{fn}" if cls else fn
            blockers.append({"file": mod.rel, "line": line, "what": "placeholder",
                             "text": f"{where} only raises NotImplementedError and nothing overrides it"})
        for what, at, call in mod.debug:
            blockers.append({"file": mod.rel, "line": at, "what": what, "text": call})
        for fn, line in mod.raises:
            if (mod.rel, line) not in seen:
                smells.append({"file": mod.rel, "line": line, "what": "NotImplementedError",
                               "text": f"{fn} raises NotImplementedError on a path no check reached"})
    return blockers, smells


def by_model(ev: Evidence | None) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Per-model task table and the narration task ids (done with zero tool calls)."""
    table: dict[str, dict[str, int]] = {}
    narration: list[str] = []
    if not ev or not ev.report:
        return table, narration
    for t in ev.report.tasks:
        row = table.setdefault(t.model or "?", {"tasks": 0, "done": 0, "failed": 0, "narration": 0,
                                                 "tool_calls": 0, "retries": 0})
        trace = ev.traces.get(t.session_id or "")
        calls = len(trace.tool_calls) if trace and trace.found else len(t.tool_calls)
        row["tasks"] += 1
        row["tool_calls"] += calls
        row["retries"] += max(t.attempts - 1, 0)
        row["done"] += t.status in ("done", "salvaged")
        row["failed"] += t.status == "failed"
        if t.status in ("done", "salvaged") and calls == 0 and not t.owns_nothing:
            row["narration"] += 1
            narration.append(t.task_id)
    return table, narration


def diagnostics_dimension(ctx: GradingContext) -> DimensionResult:
    blockers, smells = scan(ctx.workspace, ctx.check_results)
    table, narration = by_model(ctx.evidence)
    findings = [Finding(severity="medium", dimension="diagnostics",
                        message=f"narration: task {tid} reported done with zero tool calls",
                        hint="the worker described the change instead of making it; try GOOSE_SWARM_SMOKE=1 or a stronger model")
                for tid in narration]
    findings += [Finding(severity="medium", dimension="diagnostics",
                         message=f"{b['what']} at {b['file']}:{b['line']}: {b['text']}", hint=HINTS[b["what"]])
                 for b in blockers]
    findings += [Finding(severity="low", dimension="diagnostics", message=f"{s['what']} at {s['file']}:{s['line']}",
                         hint="leftover marker: the feature may be unfinished") for s in smells[:20]]
    status: Status = "fail" if blockers or narration else "partial" if smells else "pass"
    summary = (f"{len(narration)} narration task(s), {len(blockers)} blocker(s), {len(smells)} smell(s)"
               if status != "pass" else "clean")
    return DimensionResult(name="diagnostics", status=status, summary=summary, findings=findings,
                           data={"blockers": blockers, "smells": smells[:50], "narration": narration,
                                 "by_model": table})
