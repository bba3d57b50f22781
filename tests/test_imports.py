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


def test_the_cli_starts_without_the_broker_the_scientific_stack_or_the_sdks():
    """Imports sit at the top of their modules, but for what keeps ``swarmgym --help`` quick: the CLI's command
    modules reach Celery, Redis, SciPy/NumPy, psutil, Jinja and the Anthropic SDK only inside the command that
    needs them."""
    import subprocess
    import sys

    heavy = ["celery", "redis", "kombu", "scipy", "numpy", "psutil", "jinja2", "anthropic", "httpx"]
    code = ("import sys, swarmgym.cli; print(' '.join(sorted({m.split('.')[0] for m in sys.modules} & set(%r))))"
            % heavy)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == []
