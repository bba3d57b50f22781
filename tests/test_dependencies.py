"""What ``pip install swarmgym`` brings: the runtime's needs only; the test tools come with the ``dev`` extra."""
from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

from swarmgym import REPO_ROOT

TEST_ONLY = {"hypothesis", "pytest-xdist", "xdist"}


def _names(reqs: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in reqs}


def test_test_tools_are_in_the_dev_extra_not_the_runtime_dependencies():
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    runtime, dev = _names(project["dependencies"]), _names(project["optional-dependencies"]["dev"])
    assert not runtime & TEST_ONLY, f"test-only packages installed for every user: {runtime & TEST_ONLY}"
    assert {"hypothesis", "pytest-xdist"} <= dev
    assert "pytest" in runtime  # the golden checks run each app's own tests with it (README, "The check PATH")


def test_no_runtime_module_imports_a_test_only_package():
    found = []
    for root in ("swarmgym", "workers"):
        for path in (REPO_ROOT / root).rglob("*.py"):
            if "testing" in Path(path).relative_to(REPO_ROOT).parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                found += [f"{path}: {n}" for n in names if n.split(".")[0] in TEST_ONLY]
    assert not found, found
