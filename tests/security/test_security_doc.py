"""docs/security.md names, for every claim, the test that proves it: each named test exists."""
from __future__ import annotations

import ast
import re

from swarmgym import REPO_ROOT

DOC = REPO_ROOT / "docs" / "security.md"


def _tests_in(path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name.startswith("test_")}


def test_every_test_the_security_doc_names_exists():
    rows = [line for line in DOC.read_text().splitlines() if line.startswith("| ") and ".py" in line]
    assert len(rows) >= 25
    missing = []
    for row in rows:
        cell = row.rstrip(" |").rsplit(" | ", 1)[-1]
        names = re.findall(r"`([^`]+)`", cell)
        if not cell.startswith("`") or ".py" not in names[0]:
            continue  # not a claim row
        first, _, name = names[0].partition("::")
        path = REPO_ROOT / "tests" / first
        if not path.is_file():
            missing.append(first)
            continue
        have = _tests_in(path)
        missing += [f"{first}::{n}" for n in [name, *names[1:]] if n and n not in have]
    assert missing == []
