"""`swarmgym tune` as a user runs it: real processes, the real simulator (whose fleet file's flag effects plant
the arms' pass rates), a real ledger; a tune killed mid-round resumes."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from swarmgym.cli import cli
from tests.support.fleets import write_fleet

ENV = {k: v for k, v in os.environ.items() if not k.startswith(("GOOSE_SWARM_", "SWARMGYM_"))}
ENV.update({"SWARMGYM_SIM_TIME_SCALE": "0", "SWARMGYM_SWARM_TIMEOUT": "90", "COLUMNS": "200"})
#: every plain gguf run is a liar (LIARS) and the review flag removes the liar: the planted best arm, which the race
#: can tell in two rounds; the third arm (a small context cap) lies like the baseline
PLANTED = [{"when": {"GOOSE_SWARM_REVIEW": "on"}, "scale": {"liar": 0.0}}]
LIARS = {"liar": 1.0, "stub": 0.0, "crash": 0.0, "narrator": 0.0, "starved": 0.0, "garbage": 0.0}
#: no stub: a stub breaks every golden row, each confirmed in a box of its own (a stub run takes three times a pass
#: to grade); the other faults at gguf's rates
NO_STUB = {"stub": 0.0}
ARMS = ["gguf", "gguf:GOOSE_SWARM_REVIEW=1", "gguf:GOOSE_LOCAL_CONTEXT_CAP=4096"]


def tune_cmd(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "swarmgym", "--home", str(home), "tune", *args]


def swarmgym_env(home: Path) -> dict:
    return {**ENV, "SWARMGYM_SIM_FLEET": str(home / "fleet.yaml")}


def tune(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(tune_cmd(home, *args), check=False, capture_output=True, text=True, env=swarmgym_env(home),
                          timeout=1200)


@pytest.mark.slow  # rounds of full simulated jobs
def test_tune_finds_the_planted_best_arm_and_draws_its_page(tmp_path):
    write_fleet(tmp_path / "fleet.yaml", faults={"gguf": LIARS}, effects=PLANTED)
    r = tune(tmp_path, *ARMS, "--suite", "bench-v2", "--min-effect", "0.4", "--parallel", "2", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["decision"] == "best" and out["winner"] == "gguf [GOOSE_SWARM_REVIEW=1]"
    assert out["baseline"] == "gguf" and out["runs"] <= 60 * 3
    vs = out["versus_baseline"]
    assert vs["first"] == "gguf" and vs["second"] == out["winner"] and vs["effect"] > 0 and vs["hi"] > 0
    page = Path(out["page"]).read_text()
    assert 'data-decision="best"' in page and page.count('class="arm-line"') == 3
    assert "Why runs failed: the leader against the baseline" in page and 'class="class-diff"' in page
    ledger = [json.loads(x) for x in (tmp_path / "ledger" / "sessions.jsonl").read_text().splitlines()]
    runs = [x for x in ledger if x["kind"] == "session"]
    assert len(runs) == out["runs"] and all(x["failure"] for x in runs)


@pytest.mark.slow  # a tune killed mid-round, then resumed
def test_a_killed_tune_resumes_runs_no_job_twice_and_says_no_arm_better_when_every_arm_is_the_same(tmp_path):
    # no flag moves any rate: the arms are one swarm (liars, crashes, narrators at gguf's rates)
    write_fleet(tmp_path / "fleet.yaml", faults={"gguf": NO_STUB}, effects=[])
    # min effect 0.5: two identical arms are told apart from a better one in two rounds (0.4: three)
    args = [*ARMS[:2], "--suite", "bench-v2", "--min-effect", "0.5", "--parallel", "2", "--json"]
    proc = subprocess.Popen(tune_cmd(tmp_path, *args), env=swarmgym_env(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    state_dir, ledger = tmp_path / "runs" / "tunes", tmp_path / "ledger" / "sessions.jsonl"
    deadline = time.monotonic() + 600
    try:
        while time.monotonic() < deadline:   # kill it once round 2 has started and recorded a job or two
            states = list(state_dir.glob("*.json")) if state_dir.is_dir() else []
            st = json.loads(states[0].read_text()) if states else {}
            in_r2 = ledger.is_file() and "-r02-" in ledger.read_text()
            if st.get("running") == 2 and in_r2:
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.2)
        else:
            pytest.fail("round 2 never started")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    tune_id = json.loads(states[0].read_text())["tune_id"]
    r = tune(tmp_path, "--resume", tune_id, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["tune_id"] == tune_id and out["decision"] == "no arm better" and out["winner"] == "gguf"
    assert out["verdict"].startswith("no arm better than the baseline gguf by 0.5")
    jobs = [json.loads(x)["job_id"] for x in ledger.read_text().splitlines() if json.loads(x)["kind"] == "session"]
    assert len(jobs) == len(set(jobs)) == out["runs"]
    st = json.loads(states[0].read_text())
    assert [x["round"] for x in st["rounds"]] == list(range(1, len(st["rounds"]) + 1)) and st["running"] is None
    assert all(len(v) == 3 and None not in v for x in st["rounds"] for v in x["outcomes"].values())
    assert len(st["rounds"]) >= 2 and all(len(x["outcomes"]) == 2 for x in st["rounds"])


@pytest.mark.parametrize("args,why", [
    (["gguf"], "expected at least two arms"),
    (["gguf", "gguf"], "is named twice"),
    (["gguf", "gguf:GOOSE_LOCAL_CONTEXT_CAP=0"], "must be a positive integer"),
    (["gguf", "gguf:GOOSE_SWARM_REVIEW=1", "--baseline", "mlx"], "--baseline: 'mlx' is not one of the arms"),
    (["gguf", "gguf:GOOSE_SWARM_REVIEW=1", "--confidence", "1.5"], "--confidence: key tune.confidence: expected less than 1"),
    (["--resume", "tune-nope"], "tune 'tune-nope': no state at"),
])
def test_bad_tune_arguments_are_one_line_errors_and_record_nothing(tmp_path, args, why):
    res = CliRunner().invoke(cli, ["--home", str(tmp_path), "tune", *args, "--swarm", "sim"])
    assert res.exit_code == 2, res.output
    assert why in res.output and res.output.strip().count("\n") == 0 and "Traceback" not in res.output
    assert not (tmp_path / "ledger").exists()
