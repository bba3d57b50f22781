"""A wheel built from this tree, installed in a fresh venv, runs the main job from an unrelated folder.

The fresh venv (:func:`tests.support.wheel.wheel_venv`) gets the wheel alone (``--no-deps``); its
third-party dependencies come from the test's own environment through a path entry, so the test needs
no network and takes seconds, not minutes.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from swarmgym import REPO_ROOT
from swarmgym.config import Config
from swarmgym.suitekit.suite import load_suite
from tests.support.wheel import run, site_packages, wheel_venv

pytestmark = pytest.mark.slow

@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory) -> Path:
    return wheel_venv(tmp_path_factory.mktemp("wheel"))


def _files(root: Path, suite: str) -> set[Path]:
    return {p.relative_to(root) for p in (root / suite).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


def test_wheel_installs_no_top_level_workers_module(fresh_venv):
    sp = site_packages(fresh_venv)
    assert not (sp / "workers").exists() and not (sp / "workers.py").exists()
    assert (sp / "swarmgym" / "workers" / "tasks.py").is_file()
    res = subprocess.run([str(fresh_venv / "bin" / "python"), "-c", "import workers"], capture_output=True,
                         text=True, cwd=sp.parent)
    assert res.returncode != 0 and "No module named 'workers'" in res.stderr


def test_wheel_carries_every_bench_suite_and_the_templates(fresh_venv):
    sp = site_packages(fresh_venv)
    for suite in sorted(p.name for p in (REPO_ROOT / "suites").glob("bench-*") if (p / "suite.yaml").is_file()):
        shipped = _files(sp / "swarmgym" / "suites", suite)
        source = _files(REPO_ROOT / "suites", suite)
        assert shipped == source, f"{suite}: missing from the wheel: {sorted(source - shipped)[:5]}"
    assert (sp / "swarmgym" / "reports" / "templates" / "session.html").is_file()


def test_installed_wheel_runs_the_main_job_from_an_unrelated_folder(fresh_venv, tmp_path):
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "GOOSE_", "PYTHONPATH"))}
    env.update(SWARMGYM_SIM_TIME_SCALE="0", COLUMNS="200")
    # smoke (one job) proves what light (every spec once, 8x the time) did: every spec's files are in the
    # wheel (the test above), and one job runs the whole path from it; seed 0 builds a passing app
    run([str(fresh_venv / "bin" / "swarmgym"), "bench", "--tier", "smoke", "--variant", "mlx", "--swarm", "sim",
         "--seed", "0"], cwd=work, env=env)
    lines = (work / "ledger" / "sessions.jsonl").read_text().splitlines()
    recs = [r for r in (json.loads(x) for x in lines if x.strip()) if r["kind"] == "session"]  # not the campaign's
    first = load_suite(Config().suite).specs[0].id  # smoke: the default suite's first spec, once
    assert [(r.get("suite"), r.get("spec")) for r in recs] == [(Config().suite, first)]  # the default suite, from the wheel
    # the simulator ran in its box (its dependencies importable there) and built an app that passes its checks
    assert recs[0]["overall"] != "error" and recs[0].get("functional"), recs[0].get("error") or recs[0].get("failure")
    assert (work / "runs" / "BENCHMARK.md").is_file()
    where = run([str(fresh_venv / "bin" / "python"), "-c",
                  "from swarmgym.suitekit.suite import packaged_suites_dir; print(packaged_suites_dir())"], cwd=work, env=env)
    assert Path(where.stdout.strip()).is_relative_to(site_packages(fresh_venv))
