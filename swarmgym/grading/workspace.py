"""Grade a workspace as it stands against a suite spec: the plain API behind ``swarmgym verify PATH``."""
from __future__ import annotations

from pathlib import Path

from swarmgym.collect import collect
from swarmgym.config import Config
from swarmgym.grading.grade import WORKSPACE, grade
from swarmgym.isolation import boxed_config
from swarmgym.models import Verdict
from swarmgym.suitekit.suite import Spec, Suite, load_suite


def grade_workspace(cfg: Config, suite_name: str, spec_key: str, path: Path, hard: bool = False,
                    check_timeout: float | None = None) -> tuple[Suite, Spec, Verdict]:
    """(suite, spec, verdict) for the app in ``path``.  With swarm evidence (``path/.swarm/``) every
    dimension is graded; without, only what the workspace itself can show (checks and diagnostics).
    IsolationError (one line) before anything runs when no check box works here."""
    cfg, _ = boxed_config(cfg, None)
    suite = load_suite(suite_name, cfg.suites_dir)
    spec = suite.spec(spec_key)
    evidence = collect(path, None, cfg) if (path / ".swarm").is_dir() else None
    verdict = grade(path, spec.checks_for(hard), cfg, dimensions=None if evidence else WORKSPACE,
                    evidence=evidence, prompt=spec.prompt_for(hard), check_timeout=check_timeout)
    return suite, spec, verdict
