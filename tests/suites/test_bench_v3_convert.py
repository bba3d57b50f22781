"""bench-v3 spec convert (tabconv, CSV <-> JSON): coverage has no hole, an independent app passes every check,
and a verify of the reference and a seeded, stratified sample of mutants (every failure label, edge class and
covering check kind; tests/support/mutant_sample.py) kills each one — among them realistic converter bugs on exactly the edge rows they are wrong on."""
from __future__ import annotations

import shutil

import pytest

from swarmgym import REPO_ROOT
from swarmgym.config import load_config
from swarmgym.suitekit.coverage import coverage
from swarmgym.suitekit.suite import load_suite, materialize
from tests.support.grading import check_results
from tests.support.mutant_sample import verify_sample

V3 = load_suite("bench-v3", REPO_ROOT / "suites")
ALT_V3 = REPO_ROOT / "tests" / "fixtures" / "alt_apps_v3"  # written from the prompts alone
SPEC = "convert"
# (mutant, the golden row it fails): realistic converter bugs, each right on the acceptance example
BUGS = {
    "line-break-unquoted": "csv-quote-line-break",          # a value with a newline written unquoted
    "quote-on-comma-not-delimiter": "csv-delimiter-tab",    # quoting keyed to ',' whatever the delimiter
    "line-break-ends-quoted-field": "quoted-line-break",    # a line-by-line reader
    "int-via-float": "int-big",                             # 12345678901234567890 through float()
    "fields-stripped": "field-blanks-kept",                 # ' 5' turned into 5
    "stats-mean-float-round": "stats-mean-half-up",         # round(0.125, 2) == 0.12
}


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={})


def test_every_requirement_and_edge_class_is_sampled_and_broken():
    cov = coverage(V3, [SPEC])
    assert cov.ok, cov.problems
    assert len(V3.mutants(V3.spec(SPEC))) >= 30
    edges = {c.edge for c in cov.edges}
    assert {"empty", "whitespace", "big", "tiny", "rounding", "separator", "quote", "unicode", "missing", "extra",
            "nesting", "order"} <= edges
    assert all(c.rows for c in cov.edges)


def test_a_writer_that_leaves_a_line_break_unquoted_fails_that_row_only(cfg, tmp_path):
    spec = V3.spec(SPEC)
    m = next(x for x in V3.mutants(spec) if x.name == "line-break-unquoted")
    ws = materialize(V3, spec, tmp_path / "ws", m)
    [res] = check_results([c for c in spec.checks if c.name == "golden_table"], ws, cfg)
    assert not res.passed and res.detail.startswith("1/69 golden rows differ: csv-quote-line-break `to-csv")


@pytest.mark.slow  # every check of the spec, sandboxed
def test_an_app_written_from_the_prompt_alone_in_another_style_passes_every_check(cfg, tmp_path):
    ws = tmp_path / "tabconv"
    shutil.copytree(ALT_V3 / "tabconv", ws, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    results = check_results(V3.spec(SPEC).checks_for(hard=True), ws, cfg)
    assert {r.name: r.detail for r in results if not r.passed} == {}


@pytest.mark.slow  # the reference and a sample of mutants, graded for real
def test_the_reference_passes_and_a_stratified_sample_of_mutants_is_killed_on_the_edge_it_breaks(cfg):
    """The frozen suite was verified whole when it was frozen (bench-v3's lock: test_bench_v3_sim); this guards
    the harness on it: the reference, the named bugs and one mutant per failure label, edge class and covering
    check kind (seeded), each killed by a covering check — the named ones on exactly their edge row."""
    result = verify_sample(V3, cfg, SPEC, always=BUGS)
    rows = {r.name: r for r in result.rows}
    assert all("golden rows match" in r.detail for r in rows["reference"].results if r.kind == "differential")
    for mutant, edge_row in BUGS.items():
        detail = " | ".join(r.detail for r in rows[mutant].results if r.kind == "differential" and not r.passed)
        assert f"{edge_row} `" in detail and "accept-" not in detail, (mutant, detail)
