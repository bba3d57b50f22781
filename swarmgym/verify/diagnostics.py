"""diagnostics: narration tasks from the traces, and a static scan of the workspace.

Narration = a task reported done with zero tool calls (it talked instead of acting).
Blockers (status fail): a not-implemented stub left in, a breakpoint call, pdb.  Smells (partial): TODO/FIXME/XXX.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from swarmgym.models import DimensionResult, Evidence, Finding, Status
from swarmgym.verify import dimension
from swarmgym.verify.context import VerifyContext

SKIP_DIRS = {".swarm", "__pycache__", ".git", ".venv", "venv", "node_modules", ".pytest_cache", ".mypy_cache"}
SOURCE_EXT = {".py", ".js", ".ts", ".rs", ".go", ".rb", ".sh"}
MAX_FILES, MAX_BYTES = 500, 512 * 1024
BLOCKERS = [
    ("NotImplementedError", re.compile(r"\bNotImplemented(?:Error)\b"), "implement the stubbed code path; a stub behind passing tests is a liar"),
    ("breakpoint", re.compile(r"^\s*[^#\n]*\bbreakpoint\(\s*\)"), "remove the breakpoint call: the app hangs waiting for a debugger"),
    ("pdb", re.compile(r"^\s*[^#\n]*\b(import pdb|pdb\.set_trace\()"), "remove the pdb call"),
]
SMELL = re.compile(r"\b(TODO|FIXME|XXX)\b")


def source_files(ws: Path) -> list[Path]:
    out: list[Path] = []
    for p in sorted(ws.rglob("*")):
        if len(out) >= MAX_FILES:
            break
        rel = p.relative_to(ws)
        if any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts[:-1]):
            continue
        if p.is_file() and p.suffix in SOURCE_EXT:
            out.append(p)
    return out


def scan(ws: Path) -> tuple[list[dict], list[dict]]:
    """Return (blockers, smells) as {file, line, what, text} rows."""
    blockers, smells = [], []
    for f in source_files(ws):
        text = f.read_bytes()[:MAX_BYTES].decode("utf-8", "replace")
        rel = str(f.relative_to(ws))
        for n, line in enumerate(text.splitlines(), 1):
            for what, rx, _ in BLOCKERS:
                if rx.search(line):
                    blockers.append({"file": rel, "line": n, "what": what, "text": line.strip()[:160]})
            m = SMELL.search(line)
            if m:
                smells.append({"file": rel, "line": n, "what": m.group(1), "text": line.strip()[:160]})
    return blockers, smells


def by_model(ev: Evidence | None) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Per-model task table and the narration task ids (done with zero tool calls)."""
    table: dict[str, dict[str, int]] = {}
    narration: list[Any] = []
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
        if t.status in ("done", "salvaged") and calls == 0:
            row["narration"] += 1
            narration.append(t.task_id)
    return table, narration


@dimension("diagnostics")
def diagnostics_dimension(ctx: VerifyContext) -> DimensionResult:
    blockers, smells = scan(ctx.workspace)
    table, narration = by_model(ctx.evidence)
    findings = [Finding(severity="medium", dimension="diagnostics",
                        message=f"narration: task {tid} reported done with zero tool calls",
                        hint="the worker described the change instead of making it; try GOOSE_SWARM_SMOKE=1 or a stronger model")
                for tid in narration]
    hints = {what: hint for what, _, hint in BLOCKERS}
    findings += [Finding(severity="medium", dimension="diagnostics", message=f"{b['what']} at {b['file']}:{b['line']}",
                         hint=hints[b["what"]]) for b in blockers]
    findings += [Finding(severity="low", dimension="diagnostics", message=f"{s['what']} at {s['file']}:{s['line']}",
                         hint="leftover marker: the feature may be unfinished") for s in smells[:20]]
    status: Status = "fail" if blockers or narration else "partial" if smells else "pass"
    summary = (f"{len(narration)} narration task(s), {len(blockers)} blocker(s), {len(smells)} smell(s)"
               if status != "pass" else "clean")
    return DimensionResult(name="diagnostics", status=status, summary=summary, findings=findings,
                           data={"blockers": blockers, "smells": smells[:50], "narration": narration,
                                 "by_model": table})
