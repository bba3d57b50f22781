"""The frozen bench-v1 suite and the suite loader: hash lock, malformed files, references and mutants.

References and mutants are graded for real: materialized into a temp dir and checked by running
the same sandboxed golden checks a swarm's app faces.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from swarmgym import REPO_ROOT
from swarmgym.config import load_config
from swarmgym.core.errors import SuiteError
from swarmgym.suitekit.suite import load_suite, locked_hash, materialize
from tests.support.grading import check_results

SUITE_DIR = REPO_ROOT / "suites" / "bench-v1"
SUITE = load_suite("bench-v1", REPO_ROOT / "suites")
MUTANTS = [(spec.id, m.name) for spec in SUITE.specs for m in SUITE.mutants(spec)]

# The three golden checks quoted by the seed tutorial, spelled as the suite must spell them.
SEED_GOLDEN = {
    "crud": ["python3 -m invtrack --db bench.db item add A1 --name Bolt --qty 10 --price 2",
             "python3 -m invtrack --db bench.db item add A2 --name Nut --qty 5 --price 1",
             "python3 -m invtrack --db bench.db report value | grep -qE '(^|[^0-9])25([^0-9]|$)'"],
    "compute": ["python3 -m rdcalc eval '2^3^2' | grep -qE '(^|[^0-9])512([^0-9]|$)'"],
    "txn": ["python3 -m txkvbench --db bench.db exec 'SET x 1; BEGIN; SET x 2; GET x; ROLLBACK; GET x; COUNT'",
            "tr '\\n' ' ' | grep -qE '2.*1.*1'"],
}


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return load_config(tmp_path_factory.mktemp("home"), environ={})


def _squash(text: str) -> str:
    return " ".join(text.replace("\\\n", " ").split())


# --- the frozen suite --------------------------------------------------------------------

def test_frozen_suite_hash_matches_its_lock():
    locked = locked_hash(SUITE)
    assert locked == SUITE.hash, (
        f"suites/bench-v1 hashes to {SUITE.hash} but suite.lock holds {locked}. bench-v1 is frozen: editing a "
        "prompt or a check makes a NEW suite with a new hash, and old results can no longer be paired with it. "
        "Revert the edit, or copy the suite to suites/<new-name>/ and freeze that with "
        "`swarmgym suite hash --suite <new-name> --write-lock`.")


def test_bench_v1_has_the_three_specs_of_the_seed():
    assert [(s.id, s.app_slug) for s in SUITE.specs] == [("crud", "invtrack"), ("compute", "rdcalc"),
                                                          ("txn", "txkvbench")]
    for spec in SUITE.specs:
        assert spec.prompt_for(False) == spec.prompt and spec.prompt_for(True) == spec.hard_prompt
        assert spec.hard_prompt != spec.prompt and f"python3 -m {spec.app_slug}" in spec.prompt
        hard = [c for c in spec.checks if c.hard_only]
        assert hard and all(c not in spec.checks_for(False) for c in hard)
        assert len(spec.checks_for(True)) == len(spec.checks)


@pytest.mark.parametrize("spec_id", SEED_GOLDEN)
def test_seed_golden_checks_are_in_the_suite(spec_id):
    runs = [_squash(c.run) for c in SUITE.spec(spec_id).checks if c.run]
    assert any(all(_squash(part) in run for part in SEED_GOLDEN[spec_id]) for run in runs)


@pytest.mark.parametrize("spec_id", ["crud", "compute", "txn"])
def test_each_spec_has_the_standard_checks(spec_id):
    spec = SUITE.spec(spec_id)
    runs = {c.name: c.run or "" for c in spec.checks}
    assert "--help" in runs["help"]
    assert "pytest --collect-only -q" in runs["tests_collect"]
    assert runs["tests_pass"].strip() == "python3 -m pytest -q"
    assert {c.kind for c in spec.checks} >= {"command_succeeds", "file_exists"}
    assert not any(c.kind == "tool_called" for c in spec.checks)


@pytest.mark.parametrize("spec_id", ["crud", "compute", "txn"])
def test_each_spec_has_liar_stub_and_crash_mutants_with_known_targets(spec_id):
    spec = SUITE.spec(spec_id)
    mutants = SUITE.mutants(spec)
    assert len(mutants) >= 4
    assert {"liar", "stub", "crash"} <= {m.failure for m in mutants}
    names = {c.name for c in spec.checks}
    for m in mutants:
        assert m.targets and set(m.targets) <= names, m.name
        assert m.description


def test_materialize_overlays_the_mutant_and_deletes_its_files(tmp_path):
    spec = SUITE.spec("crud")
    ref = materialize(SUITE, spec, tmp_path / "ref")
    mutant = next(m for m in SUITE.mutants(spec) if m.name == "minimal-nohelp")
    mut = materialize(SUITE, spec, tmp_path / "mut", mutant)
    assert (ref / "README.md").is_file() and not (mut / "README.md").exists()
    assert (mut / "invtrack" / "cli.py").read_text() == (mutant.dir / "invtrack" / "cli.py").read_text()
    assert (mut / "invtrack" / "store.py").read_text() == (ref / "invtrack" / "store.py").read_text()
    assert not (mut / "mutant.yaml").exists()


# --- references pass, mutants fail (real subprocesses) ------------------------------------

@pytest.mark.slow  # every check of a spec, sandboxed
@pytest.mark.parametrize("spec_id", ["crud", "compute", "txn"])
def test_reference_passes_every_check_hard_ones_included(spec_id, cfg, tmp_path):
    spec = SUITE.spec(spec_id)
    ws = materialize(SUITE, spec, tmp_path / spec.app_slug)
    results = check_results(spec.checks_for(hard=True), ws, cfg)
    failed = {r.name: (r.detail, r.stdout_tail[-400:], r.stderr_tail[-400:]) for r in results if not r.passed}
    assert failed == {}


@pytest.mark.parametrize("spec_id, mutant_name", MUTANTS, ids=[f"{s}-{m}" for s, m in MUTANTS])
def test_mutant_fails_its_targets(spec_id, mutant_name, cfg, tmp_path):
    spec = SUITE.spec(spec_id)
    mutant = next(m for m in SUITE.mutants(spec) if m.name == mutant_name)
    ws = materialize(SUITE, spec, tmp_path / spec.app_slug, mutant)
    wanted = set(mutant.targets) | ({"tests_pass"} if mutant.failure == "liar" else set())
    results = {r.name: r for r in check_results([c for c in spec.checks if c.name in wanted], ws, cfg)}
    passed_targets = [t for t in mutant.targets if results[t].passed]
    assert passed_targets == [], f"{mutant_name} passes its target(s) {passed_targets}"
    if mutant.failure == "liar":  # a liar's own test suite passes: that is the whole point
        assert results["tests_pass"].passed, results["tests_pass"].stdout_tail[-800:]
    if mutant.failure == "stub":  # what the diagnostics scan and the simulator's stub fault rely on
        assert any("NotImplementedError" in f.read_text() for f in mutant.dir.rglob("*.py"))
    if mutant.failure == "crash":  # the entry point raises: a Python traceback, not a clean error
        assert any("Traceback" in r.stderr_tail + r.stdout_tail for r in results.values())


# --- malformed suite files ----------------------------------------------------------------

GOOD = {
    "name": "tiny",
    "specs": [{"id": "s", "app_slug": "app", "prompt": "p", "hard_prompt": "hp",
               "checks": [{"name": "c", "kind": "command_succeeds", "run": "true"}]}],
}


def _bad(mutate):
    data = yaml.safe_load(yaml.safe_dump(GOOD))
    mutate(data)
    return yaml.safe_dump(data)


MALFORMED = {
    "unknown top-level key": (_bad(lambda d: d.update(owner="me")), "owner"),
    "unknown spec key": (_bad(lambda d: d["specs"][0].update(promt="x")), "specs.0.promt"),
    "unknown check key": (_bad(lambda d: d["specs"][0]["checks"][0].update(command="x")), "checks.0.command"),
    "unknown check kind": (_bad(lambda d: d["specs"][0]["checks"][0].update(kind="output_equals")), "output_equals"),
    "missing field": (_bad(lambda d: d["specs"][0].pop("hard_prompt")), "specs.0.hard_prompt"),
    "missing key for kind": (_bad(lambda d: d["specs"][0]["checks"][0].pop("run")), "'run'"),
    "bad yaml": ("name: tiny\nspecs: [\n  - id: s\n", "not valid YAML"),
    "not a mapping": ("- a\n- b\n", "mapping"),
    "duplicate check names": (_bad(lambda d: d["specs"][0]["checks"].append(d["specs"][0]["checks"][0])),
                              "unique"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_suite_gives_one_line_error_naming_file_and_key(case, tmp_path):
    text, needle = MALFORMED[case]
    (tmp_path / "suite.yaml").write_text(text)
    with pytest.raises(SuiteError) as e:
        load_suite(tmp_path)
    msg = str(e.value)
    assert "\n" not in msg and str(tmp_path / "suite.yaml") in msg and needle in msg


def test_malformed_mutant_yaml_names_its_file_and_key(tmp_path):
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(GOOD))
    mdir = tmp_path / "apps" / "app" / "mutants" / "m1"
    mdir.mkdir(parents=True)
    (mdir / "mutant.yaml").write_text("description: d\ntargets: [c]\nfailure: liar\nsevrity: high\n")
    suite = load_suite(tmp_path)
    with pytest.raises(SuiteError, match="sevrity") as e:
        suite.mutants(suite.spec("s"))
    assert str(mdir / "mutant.yaml") in str(e.value)


def test_unknown_suite_name_is_a_suite_error(tmp_path):
    with pytest.raises(SuiteError, match="no-such-suite"):
        load_suite("no-such-suite", tmp_path)


@pytest.mark.parametrize("case", ["unknown check kind", "missing field", "bad yaml"])
def test_cli_on_malformed_suite_exits_2_with_one_line_and_no_traceback(case, tmp_path):
    text, needle = MALFORMED[case]
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "suite.yaml").write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWARMGYM_")}
    res = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(tmp_path), "suite", "hash",
                          "--suite", str(tmp_path / "bad")], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "suite.yaml" in lines[0]


# --- the hash ------------------------------------------------------------------------------

def test_hash_changes_with_a_check_but_not_with_formatting(tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    text = (SUITE_DIR / "suite.yaml").read_text()
    (copy / "suite.yaml").write_text("# a comment changes nothing\n" + text.replace("\n\nspecs:", "\n\n\nspecs:"))
    assert load_suite(copy).hash == SUITE.hash
    # an unset optional field spelled out (as a newer loader with more optional fields would see it)
    name_line = "      - name: tests_pass\n"
    (copy / "suite.yaml").write_text(text.replace(name_line, name_line + "        timeout: null\n"))
    assert load_suite(copy).hash == SUITE.hash
    golden = "'2^3^2' | grep -qE '(^|[^0-9])512"
    (copy / "suite.yaml").write_text(text.replace(golden, golden.replace("512", "64")))
    assert load_suite(copy).hash != SUITE.hash
    (copy / "suite.yaml").write_text(text.replace("Build `rdcalc`", "Build `rdcalc` now"))
    assert load_suite(copy).hash != SUITE.hash


def test_hash_ignores_reference_and_mutant_files(tmp_path):
    shutil.copytree(SUITE_DIR, tmp_path / "copy", ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    (tmp_path / "copy" / "apps" / "rdcalc" / "reference" / "README.md").write_text("changed\n")
    assert load_suite(tmp_path / "copy").hash == SUITE.hash


def test_suite_dir_of_the_repo_is_where_the_config_points(tmp_path):
    assert load_config(tmp_path, environ={}).suites_dir == Path(REPO_ROOT / "suites")
