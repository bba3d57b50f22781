"""``swarmgym verify`` grades an existing workspace."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from swarmgym.suitekit.suite import load_suite, materialize
from tests.support.probeapp import make_app, tally_suite
from tests.support.queue import tiny_settings

ENV = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "GOOSE_SWARM_"))}


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "swarmgym", *args], capture_output=True, text=True,
                          env={**ENV, "SWARMGYM_SIM_TIME_SCALE": "0.01"}, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def suite():
    return load_suite("bench-v1")


def test_a_workspace_is_graded_on_its_specs_checks_exit_0_when_functional_and_1_when_not(tmp_path):
    """The fast twin of the bench-v1 tests below: a one-check suite, a workspace that has or lacks out.txt."""
    suite_dir = Path(tiny_settings(tmp_path / "home")["suites_dir"]) / "tiny-v1"
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "out.txt").write_text("ok\n")
    r = run("--home", str(tmp_path), "verify", "--suite", str(suite_dir), "--spec", "touch", "--json", str(ws))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["overall"] == "pass" and out["functional"] is True
    assert [c["name"] for c in out["dimensions"]["checks"]["checks"]] == ["out_exists"]
    (ws / "out.txt").unlink()
    r = run("--home", str(tmp_path), "verify", "--suite", str(suite_dir), "--spec", "touch", "--json", str(ws))
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert out["functional"] is False and out["dimensions"]["checks"]["status"] == "fail"


@pytest.mark.slow  # grades a workspace on every check of a bench-v1 spec
def test_reference_workspace_is_functional_json_and_exit_0(tmp_path, suite):
    ws = materialize(suite, suite.spec("rdcalc"), tmp_path / "ws")
    r = run("--home", str(tmp_path), "verify", "--suite", suite.name, "--spec", "rdcalc", "--json", str(ws))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["overall"] == "pass" and out["functional"] is True
    assert out["dimensions"]["checks"]["status"] == "pass"
    names = {c["name"] for c in out["dimensions"]["checks"]["checks"]}
    assert names == {c.name for c in suite.spec("rdcalc").checks_for(False)}
    assert out["dimensions"]["diagnostics"]["status"] == "pass" and out["findings"] == []
    assert "swarm" not in out["dimensions"]  # no .swarm/ evidence: only what the workspace shows


@pytest.mark.slow  # grades a workspace on every check of a bench-v1 spec
def test_stub_mutant_fails_with_not_implemented_named_at_file_and_line(tmp_path, suite):
    spec = suite.spec("txn")
    stub = next(m for m in suite.mutants(spec) if m.failure == "stub")
    ws = materialize(suite, spec, tmp_path / "ws", stub)
    r = run("--home", str(tmp_path), "verify", "--suite", suite.name, "--spec", "txn", "--json", str(ws))
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["functional"] is False and out["overall"] == "fail"
    blockers = out["dimensions"]["diagnostics"]["blockers"]
    assert any(b["what"] == "reached stub" and "NotImplementedError" in b["text"] and b["line"] > 0 for b in blockers)
    assert any(f["dimension"] == "checks" and f["severity"] == "high" for f in out["findings"])


@pytest.mark.slow  # grades a workspace on every check of a bench-v1 spec
def test_workspace_with_swarm_evidence_gains_swarm_and_cluster_dimensions(tmp_path, suite):
    ws = tmp_path / "ws"
    ws.mkdir()
    prompt = suite.spec("compute").prompt
    env = {**ENV, "SWARMGYM_SIM_FORCE": "reference", "SWARMGYM_SIM_TIME_SCALE": "0.01",
           "GOOSE_PATH_ROOT": str(tmp_path / "goose")}
    subprocess.run(["swarmgym-sim", "swarm", "run", prompt, "--output-format", "json"], cwd=ws, env=env,
                   capture_output=True, timeout=120, check=True)
    r = run("--home", str(tmp_path), "verify", "--spec", "compute", "--json", str(ws))
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["dimensions"]["cluster"]["status"] in ("pass", "partial")
    assert out["dimensions"]["cluster"]["per_device"]


@pytest.mark.slow  # grades a workspace on every check of a bench-v1 spec
def test_human_output_is_a_table_with_the_verdict(tmp_path, suite):
    ws = materialize(suite, suite.spec("crud"), tmp_path / "ws")
    r = run("--home", str(tmp_path), "verify", "--suite", suite.name, "--spec", "crud", str(ws))
    assert r.returncode == 0 and "total_value" in r.stdout and "overall pass" in r.stdout


def test_unknown_spec_is_one_line_usage_error(tmp_path):
    r = run("--home", str(tmp_path), "verify", "--spec", "nosuch", str(tmp_path))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "nosuch" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_verify_exits_3_and_says_infra_when_a_probe_cannot_run(tmp_path):
    """A check box whose PATH holds no bash or python3: the probes cannot run, which is no verdict on the app."""
    suite_dir = tally_suite(tmp_path / "suites" / "probes-v1")
    ws = make_app(tmp_path / "ws")
    (tmp_path / "config.yaml").write_text(f"checks:\n  env:\n    PATH: {tmp_path / 'empty'}\n")
    r = run("--home", str(tmp_path), "verify", "--suite", str(suite_dir), "--spec", "tally", str(ws))
    assert r.returncode == 3, r.stdout + r.stderr
    assert "INFRA" in r.stdout and "overall error" in r.stdout
    r = run("--home", str(tmp_path), "verify", "--suite", str(suite_dir), "--spec", "tally", "--json", str(ws))
    out = json.loads(r.stdout)
    assert r.returncode == 3 and out["overall"] == "error" and out["dimensions"]["checks"]["status"] == "error"
    infra = [c["name"] for c in out["dimensions"]["checks"]["checks"] if c["error"]]
    assert infra == ["money_api", "store_owns_sql", "tests_pass"]  # the static probes still ran
