"""bench-v3 spec logs (logstat, an access-log report): the reference and an independent app pass every
check, coverage has no hole, and realistic log-parser bugs fail exactly the edge rows they are wrong on."""
from __future__ import annotations

import shutil

import pytest

from swarmgym.checks import run_checks
from swarmgym.config import load_config
from swarmgym.coverage import coverage
from swarmgym.suite import materialize
from swarmgym.suiteverify import verify_suite
from tests.suites.v3view import ALT_V3, bench_v3_with

SPEC = "logs"


@pytest.fixture(scope="module")
def v3(tmp_path_factory):
    return bench_v3_with(SPEC, tmp_path_factory.mktemp("v3"))


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={})


def golden_detail(v3, cfg, ws) -> str:
    spec = v3.spec(SPEC)
    results = run_checks([c for c in spec.checks if c.kind == "differential"], ws, cfg)
    return " | ".join(r.detail for r in results if not r.passed)


def test_the_reference_passes_every_check_hard_ones_too(v3, cfg, tmp_path):
    spec = v3.spec(SPEC)
    results = run_checks(spec.checks_for(hard=True), materialize(v3, spec, tmp_path / "ref"), cfg)
    assert {r.name: r.detail for r in results if not r.passed} == {}
    golden = [r.detail for r in results if r.kind == "differential"]
    assert len(golden) == 2 and all("golden rows match" in d for d in golden)


def test_an_app_written_from_the_prompt_alone_in_another_style_passes_every_check(v3, cfg, tmp_path):
    ws = tmp_path / "logstat"
    shutil.copytree(ALT_V3 / "logstat", ws, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    results = run_checks(v3.spec(SPEC).checks_for(hard=True), ws, cfg)
    assert {r.name: r.detail for r in results if not r.passed} == {}


def test_every_requirement_and_edge_class_is_sampled_and_broken(v3):
    cov = coverage(v3, [SPEC])
    assert cov.ok, cov.problems
    assert len(v3.mutants(v3.spec(SPEC))) >= 30
    edges = {c.edge for c in cov.edges}
    assert {"empty", "zero", "whitespace", "big", "rounding", "separator", "boundary", "unicode", "missing", "extra",
            "duplicate", "order"} <= edges
    assert all(c.rows for c in cov.edges)


# (mutant, the golden row it must fail): realistic log-report bugs, each right on the acceptance example
BUGS = [
    ("mean-float-round", "mean-half-up"),                        # round(0.125, 2) == 0.12
    ("rank-floor-plus-one", "latency-nearest-rank-10"),          # p90 of 10 values is the 9th, not the 10th
    ("top-ties-first-seen", "top-ties-by-path"),                 # equal counts left in first-seen order
    ("single-space-only", "separators-tabs-and-runs"),           # line.split(" ") parsing
    ("month-any-case", "time-real-dates-only"),                  # strptime's %b takes 'mar'
    ("bytes-general-format", "bytes-past-a-trillion"),           # 2000000000000 printed as 2e+12
    ("percentile-float-rank", "percentile-exact-rank"),          # ceil(28 / 100 * 25) == 8 in floats
]


@pytest.mark.parametrize("mutant, row", BUGS)
def test_a_log_report_bug_fails_its_edge_row_and_not_the_acceptance_rows(v3, cfg, tmp_path, mutant, row):
    spec = v3.spec(SPEC)
    m = next(x for x in v3.mutants(spec) if x.name == mutant)
    detail = golden_detail(v3, cfg, materialize(v3, spec, tmp_path / mutant, m))
    assert f"{row} `" in detail
    assert "accept-" not in detail


@pytest.mark.slow
def test_every_mutant_is_killed_by_a_check_covering_what_it_breaks(v3, cfg):
    result = verify_suite(v3, cfg, workers=2, specs=[SPEC])
    assert {r.name: r.problem for r in result.rows if not r.ok} == {}
    assert result.killed == result.mutants >= 30
