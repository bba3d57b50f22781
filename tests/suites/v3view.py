"""bench-v3 as a test sees it: the whole suite once all nine spec files exist, else a one-spec view.

Each bench-v3 spec lands on its own (``suites/bench-v3/specs/<id>.yaml`` plus its apps, tables and
generator) while ``load_suite("bench-v3")`` still fails on the spec files not yet written; the view is
a temporary suite folder whose suite.yaml lists only the spec under test and whose ``specs``, ``apps``,
``tables`` and ``gen`` are links to the real ones, so every check and mutant is the real one.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from swarmgym.config import REPO_ROOT
from swarmgym.errors import SuiteError
from swarmgym.suite import Suite, load_suite

V3 = REPO_ROOT / "suites" / "bench-v3"
ALT_V3 = REPO_ROOT / "tests" / "fixtures" / "alt_apps_v3"


def bench_v3_with(spec_id: str, tmp: Path) -> Suite:
    """bench-v3 holding ``spec_id`` (the real suite when it loads, else a view of that one spec)."""
    try:
        suite = load_suite(V3)
        suite.spec(spec_id)
        return suite
    except SuiteError:
        pass
    view = tmp / "bench-v3"
    view.mkdir(parents=True, exist_ok=True)
    for part in ("specs", "apps", "tables", "gen"):
        (view / part).symlink_to(V3 / part, target_is_directory=True)
    (view / "suite.yaml").write_text(yaml.safe_dump({"name": "bench-v3", "min_mutants_per_spec": 30,
                                                     "specs": [f"specs/{spec_id}.yaml"]}))
    return load_suite(view)
