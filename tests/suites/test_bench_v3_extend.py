"""bench-v3 spec extend (todokit): continue-existing — the workspace starts with a working app.

The starter passes the old-behaviour checks and fails the new ones (so a graded workspace tells "broke
what worked" from "added nothing"); the reference (starter + extension) and an independent extension
of the starter pass every check; a job's workspace holds the starter before the swarm starts and the
simulator writes the reference over it; realistic regressions (an old command's output changed while
adding a feature, ids reused, a read that now writes the file, an old file that crashes the new code)
are each killed by a check covering what they break, in one verify with the reference and a seeded,
stratified sample of the other mutants (every failure label, edge class and covering check kind not already
among the bug classes).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from swarmgym import REPO_ROOT
from swarmgym.campaigns.job import run_job
from swarmgym.config import load_config
from swarmgym.models import JobSpec
from swarmgym.suitekit.coverage import coverage
from swarmgym.suitekit.suite import load_suite, materialize, starter_files
from tests.support.grading import check_results
from tests.support.mutant_sample import verify_sample

V3 = load_suite("bench-v3", REPO_ROOT / "suites")
SPEC = V3.spec("extend")
STARTER = V3.starter_dir(SPEC)
ALT = Path(__file__).resolve().parent.parent / "fixtures" / "alt_apps_v3" / "todokit"
OLD_CHECKS = {"old_behaviour", "kept_tests", "tests_pass", "stdlib_only", "argparse", "default_file"}
BUG_CLASSES = ["list-shows-priority", "ids-from-max", "list-creates-file", "old-file-keyerror", "add-strips-text",
               "search-lower", "sort-priority-by-name", "export-comma-join", "starter-unchanged", "search-stub"]


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={})


def _copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return dest


def test_the_starter_passes_the_old_behaviour_checks_and_fails_the_new_ones(cfg, tmp_path):
    assert STARTER is not None and SPEC.starter == "apps/todokit/starter"
    results = {r.name: r for r in check_results(SPEC.checks_for(hard=True), _copy(STARTER, tmp_path / "ws"), cfg)}
    assert {n: results[n].detail for n in OLD_CHECKS if not results[n].passed} == {}
    assert {n for n, r in results.items() if not r.passed} == set(results) - OLD_CHECKS


def test_an_independent_extension_of_the_starter_passes_every_check(cfg, tmp_path):
    results = check_results(SPEC.checks_for(hard=True), _copy(ALT, tmp_path / "todokit"), cfg)
    assert {r.name: r.detail for r in results if not r.passed} == {}


def test_the_reference_keeps_every_starter_file_it_does_not_extend(tmp_path):
    ref = V3.reference_dir(SPEC)
    kept = {f.relative_to(STARTER).as_posix() for f in starter_files(STARTER)}
    assert kept <= {f.relative_to(ref).as_posix() for f in starter_files(ref)}
    assert (ref / "tests" / "test_todokit.py").read_text() == (STARTER / "tests" / "test_todokit.py").read_text()
    assert (ref / "todokit" / "store.py").read_text() == (STARTER / "todokit" / "store.py").read_text()


def test_the_starter_unchanged_mutant_is_the_starter_byte_for_byte(tmp_path):
    m = next(x for x in V3.mutants(SPEC) if x.name == "starter-unchanged")
    ws = materialize(V3, SPEC, tmp_path / "ws", m)
    got = {f.relative_to(ws).as_posix(): f.read_bytes() for f in starter_files(ws)}
    assert got == {f.relative_to(STARTER).as_posix(): f.read_bytes() for f in starter_files(STARTER)}


def test_a_simulated_job_starts_from_the_starter_and_builds_the_reference_over_it(tmp_path):
    cfg = load_config(tmp_path, environ={"SWARMGYM_SWARM_TIMEOUT": "120"})
    job = JobSpec(job_id="t-000", campaign_id="t", suite=V3.name, suite_hash=V3.hash, spec="extend",
                  app_slug="todokit", variant="mlx", tier="light", rep=0,
                  env={"SWARMGYM_SIM_FORCE": "reference", "SWARMGYM_SIM_TIME_SCALE": "0.01"})
    res = run_job(job, cfg)
    assert res.status == "done" and res.verdict.functional, res.verdict and res.verdict.findings
    doc = json.loads((cfg.runs_dir / res.session_id / "session.json").read_text())
    assert doc["data"]["starter_files"] == len(starter_files(STARTER))
    ws = Path(doc["workspace"])
    assert (ws / "todokit" / "query.py").is_file() and (ws / "tests" / "test_todokit.py").is_file()


def test_every_requirement_and_edge_class_is_sampled_and_broken():
    cov = coverage(V3, ["extend"])
    assert cov.problems == [] and cov.without_check == [] and cov.without_mutant == []
    assert len(V3.mutants(SPEC)) >= 30
    old = [r for r in cov.rows if r.id.startswith("E-OLD-")]
    assert len(old) >= 10 and all(r.mutants for r in old)


@pytest.mark.slow  # a verify of the reference and ~20 mutants; the fast tier verifies tiny suites on the same path
def test_the_reference_passes_every_check_and_regressions_and_a_stratified_sample_are_killed(cfg):
    """The reference passes every check, hard ones included; the realistic regressions and a stratified
    sample of the other mutants are each killed by a check covering what they break.
    The frozen suite was verified whole when it was frozen (bench-v3's lock:
    test_bench_v3_sim); this guards the harness on it: one mutant per failure label, edge class and covering
    check kind (seeded)."""
    result = verify_sample(V3, cfg, "extend", always=BUG_CLASSES)
    rows = {r.name: r for r in result.rows}
    assert "old_behaviour" in rows["list-shows-priority"].failed  # an old command's output changed
    assert "old_behaviour" not in rows["starter-unchanged"].failed  # nothing added, nothing broken

