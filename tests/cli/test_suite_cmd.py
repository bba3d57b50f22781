"""`swarmgym suite hash | verify`, run as a user would: a real subprocess, exit codes, output."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from swarmgym import REPO_ROOT
from swarmgym.config import Config
from swarmgym.suitekit.suite import load_suite


def swarmgym(*args: str, home: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWARMGYM_")}
    env["COLUMNS"] = "200"
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), *args],
                          check=False, capture_output=True, text=True, env=env, timeout=timeout)


def tiny_suite(root: Path, *, liar_script: str = "echo goodbye\n", lock: bool = True) -> Path:
    """A one-spec suite whose app is a bash script: reference + liar/stub/crash mutants."""
    d = root / "tiny"
    checks = [{"name": "says_hello", "kind": "command_succeeds", "run": 'test "$(bash hello.sh)" = hello'},
              {"name": "has_script", "kind": "file_exists", "path": "hello.sh"}]
    d.mkdir(parents=True)
    (d / "suite.yaml").write_text(yaml.safe_dump({"name": "tiny", "specs": [
        {"id": "greet", "app_slug": "hello", "prompt": "p", "hard_prompt": "hp", "checks": checks}]}))
    app = d / "apps" / "hello"
    (app / "reference").mkdir(parents=True)
    (app / "reference" / "hello.sh").write_text("echo hello\n")
    mutants = {"liar": ({"targets": ["says_hello"]}, {"hello.sh": liar_script}),
               "stub": ({"targets": ["says_hello"]}, {"hello.sh": "exit 1\n"}),
               "crash": ({"targets": ["has_script"], "delete": ["hello.sh"]}, {})}
    for name, (meta, files) in mutants.items():
        (app / "mutants" / name).mkdir(parents=True)
        (app / "mutants" / name / "mutant.yaml").write_text(
            yaml.safe_dump({"description": f"{name} mutant", "failure": name, **meta}))
        for f, text in files.items():
            (app / "mutants" / name / f).write_text(text)
    if lock:
        (d / "suite.lock").write_text(load_suite(d).hash + "\n")
    return d


def test_hash_prints_the_frozen_suite_hash_matching_its_lock(tmp_path):
    res = swarmgym("suite", "hash", home=tmp_path)
    lock = (REPO_ROOT / "suites" / Config().suite / "suite.lock").read_text().strip()  # the default suite
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == lock
    assert "matches" in res.stderr


@pytest.mark.slow  # verifies a whole spec (reference and mutants)
def test_freeze_locks_a_verified_suite_and_refuses_to_refreeze_an_edit(tmp_path):
    d = tiny_suite(tmp_path, lock=False)
    res = swarmgym("suite", "freeze", "--suite", str(d), home=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert (d / "suite.lock").read_text().strip() == swarmgym("suite", "hash", "--suite", str(d), home=tmp_path).stdout.strip()
    (d / "suite.yaml").write_text((d / "suite.yaml").read_text().replace("hp", "harder"))
    res = swarmgym("suite", "hash", "--suite", str(d), home=tmp_path)
    assert res.returncode == 1 and "MISMATCH" in res.stderr
    res = swarmgym("suite", "freeze", "--suite", str(d), home=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr and "new suite" in res.stderr


def test_unknown_suite_exits_2_without_traceback(tmp_path):
    res = swarmgym("suite", "hash", "--suite", "no-such-suite", home=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr and "no-such-suite" in res.stderr


def test_verify_good_suite_exits_0_and_shows_a_row_per_app(tmp_path):
    res = swarmgym("suite", "verify", "--suite", str(tiny_suite(tmp_path)), home=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    for name in ("reference", "liar", "stub", "crash"):
        assert name in res.stdout
    assert "DEFECT" not in res.stdout and "suite OK" in res.stdout


def test_verify_reports_a_mutant_that_passes_its_target_and_exits_1(tmp_path):
    d = tiny_suite(tmp_path, liar_script="echo hello\n")
    res = swarmgym("suite", "verify", "--suite", str(d), home=tmp_path)
    assert res.returncode == 1
    assert "DEFECT" in res.stdout and "passes its target" in res.stdout and "says_hello" in res.stdout


def test_verify_json_is_machine_readable(tmp_path):
    d = tiny_suite(tmp_path, lock=False)
    res = swarmgym("suite", "verify", "--suite", str(d), "--json", home=tmp_path)
    assert res.returncode == 1  # no lock yet
    data = json.loads(res.stdout)
    assert data["ok"] is False and data["hash_ok"] is False and data["locked_hash"] is None
    assert {r["name"] for r in data["rows"]} == {"reference", "liar", "stub", "crash"}
    assert all(r["ok"] for r in data["rows"])


def test_verify_with_a_bad_check_timeout_exits_2(tmp_path):
    d = tiny_suite(tmp_path)
    res = swarmgym("suite", "verify", "--suite", str(d), "--check-timeout", "-1", home=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr and "timeout" in res.stderr


def test_verify_check_timeout_kills_a_hanging_check(tmp_path):
    d = tiny_suite(tmp_path)
    (d / "apps" / "hello" / "reference" / "hello.sh").write_text("sleep 30; echo hello\n")
    res = swarmgym("suite", "verify", "--suite", str(d), "--check-timeout", "1", "--json", home=tmp_path)
    data = json.loads(res.stdout)
    ref = next(r for r in data["rows"] if r["name"] == "reference")
    assert res.returncode == 1 and ref["failed"] == ["says_hello"]
    assert ref["results"][0]["timed_out"] is True


def test_verify_shows_why_a_reference_fails(tmp_path):
    d = tiny_suite(tmp_path)
    (d / "apps" / "hello" / "reference" / "hello.sh").write_text("echo reference-is-broken >&2; exit 1\n")
    res = swarmgym("suite", "verify", "--suite", str(d), home=tmp_path)
    assert res.returncode == 1
    assert "greet/reference says_hello: exit 1" in res.stdout and "reference-is-broken" in res.stdout


def test_coverage_prints_every_requirement_with_its_checks_and_mutants(tmp_path):
    res = swarmgym("suite", "coverage", "--suite", "bench-v2", "--json", home=tmp_path)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["ok"] and out["per_spec"]["compute"]["requirements"] == out["per_spec"]["compute"]["covered"]
    row = next(r for r in out["rows"] if r["id"] == "R-FMT-INT")
    assert row["checks"] == ["golden_table"] and "float-integral" in row["mutants"]


def test_coverage_exits_1_when_a_requirement_has_no_check(tmp_path):
    d = tiny_suite(tmp_path)
    data = yaml.safe_load((d / "suite.yaml").read_text())
    data["specs"][0]["requirements"] = [{"id": "G-HELLO", "text": "prints hello"}, {"id": "G-BYE", "text": "says bye"}]
    data["specs"][0]["checks"][0]["covers"] = ["G-HELLO"]
    (d / "suite.yaml").write_text(yaml.safe_dump(data))
    res = swarmgym("suite", "coverage", "--suite", str(d), home=tmp_path)
    assert res.returncode == 1 and "G-BYE" in res.stdout and "NONE" in res.stdout


@pytest.mark.slow  # verifies a whole spec (reference and mutants)
def test_verify_reports_the_mutation_score(tmp_path):
    res = swarmgym("suite", "verify", "--suite", "bench-v2", "--spec", "compute", "--mutant", "floor-division",
                   "--json", home=tmp_path, timeout=300)
    out = json.loads(res.stdout)
    [mut] = [r for r in out["rows"] if r["kind"] == "mutant"]
    assert mut["name"] == "floor-division" and "golden_table" in mut["failed"] and mut["ok"]
    assert out["killed"] == out["mutants"] == 1 and out["mutation_score"] == 1.0


def _scaffold(tmp_path, name="greeter", suite="my-v1"):
    suites = tmp_path / "suites"
    (tmp_path / "config.yaml").write_text(f"suites_dir: {suites}\n")
    res = swarmgym("suite", "new", name, "--suite", suite, home=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    return suites / suite


@pytest.mark.slow  # verifies a whole spec (reference and mutants)
def test_a_scaffolded_spec_is_whole_and_freezes(tmp_path):
    d = _scaffold(tmp_path)
    assert (d / "specs" / "greeter.yaml").is_file() and (d / "tables" / "greeter.json").is_file()
    assert (d / "apps" / "greeter" / "reference" / "greeter" / "__main__.py").is_file()
    cov = swarmgym("suite", "coverage", "--suite", "my-v1", "--json", home=tmp_path)
    assert cov.returncode == 0, cov.stdout
    assert {(c["id"], c["edge"]) for c in json.loads(cov.stdout)["edges"]} == {
        ("GREETER-GREET", "whitespace"), ("GREETER-GREET", "unicode"), ("GREETER-BLANK", "empty"),
        ("GREETER-BLANK", "whitespace")}
    res = swarmgym("suite", "freeze", "--suite", "my-v1", "--workers", "2", home=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "kills per requirement: 4/4" in res.stdout and "mutation score: 8/8" in res.stdout
    assert (d / "suite.lock").read_text().strip().startswith("sha256:")
    again = swarmgym("suite", "new", "other", "--suite", "my-v1", home=tmp_path)
    assert again.returncode == 2 and "is frozen" in again.stderr and "Traceback" not in again.stderr


def test_freeze_refuses_a_suite_whose_edge_class_no_row_samples(tmp_path):
    d = _scaffold(tmp_path)
    table = d / "tables" / "greeter.json"
    data = json.loads(table.read_text())
    data["rows"] = [r for r in data["rows"] if "unicode" not in r["edges"]]
    table.write_text(json.dumps(data))
    res = swarmgym("suite", "freeze", "--suite", "my-v1", home=tmp_path)
    assert res.returncode == 1
    assert "requirement GREETER-GREET: no golden row or check samples edge class 'unicode'" in res.stdout
    assert not (d / "suite.lock").exists()


@pytest.mark.slow  # verifies a whole spec (reference and mutants)
def test_freeze_refuses_a_suite_with_a_surviving_mutant(tmp_path):
    d = _scaffold(tmp_path)
    mutants = d / "apps" / "greeter" / "mutants.yaml"
    mutants.write_text(mutants.read_text() + """  - name: harmless
    breaks: [GREETER-GREET]
    failure: liar
    description: renames a local variable (not a bug at all)
    patch:
      - {file: greeter/__main__.py, old: "    parser = argparse", new: "    p = None\\n    parser = argparse"}
""")
    res = swarmgym("suite", "freeze", "--suite", "my-v1", "--workers", "2", home=tmp_path)
    assert res.returncode == 1 and "not frozen" in res.stderr
    assert "GREETER-GREET[/]" not in res.stdout and "survivors harmless" in res.stdout
    assert not (d / "suite.lock").exists()


def test_suite_new_refuses_a_name_that_is_not_an_identifier(tmp_path):
    (tmp_path / "config.yaml").write_text(f"suites_dir: {tmp_path / 'suites'}\n")
    res = swarmgym("suite", "new", "Bad-Name", "--suite", "my-v1", home=tmp_path)
    assert res.returncode == 2 and "NAME: expected a lower-case identifier" in res.stderr and "Traceback" not in res.stderr
