"""Recognise the suite spec a prompt asks for, plan its tasks and dispatch them over the pool.

A prompt is recognised by exact match with a spec's prompt or hard prompt, else by the app
slug appearing in it as a word.  Suites come from ``SWARMGYM_SUITES_DIR`` (what the sim
adapter passes from ``cfg.suites_dir``) or the packaged suites.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from swarmgym.core.errors import SuiteError
from swarmgym.suitekit.suite import Spec, Suite, load_suite, packaged_suites_dir


@dataclass
class Target:
    suite: Suite
    spec: Spec
    hard: bool


def _suites(env: Mapping[str, str]) -> list[Suite]:
    root = Path(env.get("SWARMGYM_SUITES_DIR") or packaged_suites_dir())
    if (root / "suite.yaml").is_file():
        dirs = [root]
    else:
        dirs = sorted((p for p in root.glob("*") if (p / "suite.yaml").is_file()), reverse=True)  # newest first
    out = []
    for d in dirs:
        try:
            out.append(load_suite(d))
        except SuiteError:
            continue  # a broken suite is not the simulator's to report
    return out


def find_spec(prompt: str, env: Mapping[str, str]) -> Target | None:
    suites = _suites(env)
    text = prompt.strip()
    for suite in suites:
        for spec in suite.specs:
            if text == spec.prompt.strip():
                return Target(suite, spec, False)
            if text == spec.hard_prompt.strip():
                return Target(suite, spec, True)
    for suite in suites:
        for spec in suite.specs:
            if re.search(rf"(?<![\w-]){re.escape(spec.app_slug)}(?![\w-])", prompt, re.IGNORECASE):
                return Target(suite, spec, False)
    return None


@dataclass
class Task:
    """One planned task, as goose's plan_loaded lists it (``id, deps, files, difficulty, model``)."""

    task_id: str
    title: str
    files: list[str] = field(default_factory=list)
    deps: list[str] = field(default_factory=list)
    difficulty: str = "medium"  # easy | medium | hard

    @property
    def owns_nothing(self) -> bool:
        return not self.files


def _kind(path: str) -> int:
    name = Path(path).name
    if path.startswith("tests/") or name.startswith("test_"):
        return 1
    if name.lower().startswith("readme") or path.endswith((".md", ".rst", ".txt")):
        return 2
    return 0


def _stem(path: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", Path(path).stem.lower()).strip("-")
    return s or "module"


def plan_tasks(files: list[str]) -> list[Task]:
    """5-6 tasks (more than the default pool has devices): code first, then tests, then docs,
    each a contiguous group of files.  Tests and docs depend on the code tasks; a task that owns
    no file (an ``integrate``/``verify`` filler, like goose's integrate-verify sink) depends on all."""
    ordered = sorted(files, key=lambda p: (_kind(p), p))
    n = min(6, max(5, math.ceil(len(ordered) / 2)))
    groups: list[list[str]] = [[] for _ in range(n)]
    if ordered:
        size, extra = divmod(len(ordered), n)
        i = 0
        for g in range(n):
            take = size + (1 if g < extra else 0)
            groups[g] = ordered[i:i + take]
            i += take
    tasks, fillers = [], iter(["integrate", "verify", "review", "polish", "smoke", "docs"])
    for g, grp in enumerate(groups, 1):
        if grp:
            name = _stem(grp[0]) if _stem(grp[0]) not in ("init", "main") or len(grp) == 1 else _stem(grp[-1])
            title = "write " + ", ".join(grp)
        else:
            name = next(fillers)
            title = f"{name} the app"
        tasks.append(Task(task_id=f"t{g}-{name}", title=title, files=grp))
    code = [t.task_id for t in tasks if t.files and _kind(t.files[0]) == 0]
    for t in tasks:
        if not t.files:
            t.deps = [o.task_id for o in tasks if o.files]
            t.difficulty = "hard"
        elif _kind(t.files[0]) != 0:
            t.deps = list(code)
            t.difficulty = "easy" if _kind(t.files[0]) == 2 else "medium"
        else:
            t.difficulty = "hard" if len(t.files) > 2 else "medium"
    return tasks


def owner(tasks: list[Task], path: str) -> Task:
    """The task that writes ``path`` (a new file goes to the task owning its directory)."""
    for t in tasks:
        if path in t.files:
            return t
    parent = str(Path(path).parent)
    for t in tasks:
        if any(str(Path(f).parent) == parent for f in t.files):
            return t
    return tasks[0]
