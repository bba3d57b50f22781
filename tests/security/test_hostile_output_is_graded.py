"""Whatever the swarm prints, its job is graded and recorded (issue #20 item 6).

A command swarm builds the tiny app (``out.txt``) and then prints a hostile stdout — 100,000 ``[``,
8 MB of unterminated nesting, 8 MB of ``{`` — and writes an event log whose lines nest 100,000 deep.
``swarmgym bench`` (real subprocess, the swarm in its box) must record the job with its golden check
run and passed, and the record must say what was wrong with the output.  No timers: the old parser
raised RecursionError here (no check ran, no record) or spent a minute of CPU per megabyte.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from tests.support.hostile import require_bwrap
from tests.support.queue import tiny_suite

SWARM = r"""
import json, os, sys
open("out.txt", "w").write("ok\n")
os.makedirs(".swarm", exist_ok=True)
good = {"ts": "2026-01-01T00:00:00+00:00", "run_id": "r", "seq": 0, "event": "run_started", "pool": []}
with open(".swarm/run-swarm-20260101-000000001.jsonl", "w") as f:
    f.write(json.dumps(good) + "\n" + "[" * 100_000 + "\n" + '{"a":' * 100_000 + "\n")
kind = sys.argv[1]
out = {"brackets": "[" * 100_000,
       "nesting": '{"a":' * 900 + "1," + '"x",' * 2_000_000,
       "braces": "{" * 8_000_000}[kind]
sys.stdout.write(out)
"""


@pytest.mark.parametrize("kind", ["brackets", "nesting", "braces"])
def test_a_swarm_that_prints_hostile_json_still_gets_its_checks_run_and_its_job_recorded(tmp_path, kind):
    require_bwrap()
    home, suites = tmp_path / "home", tmp_path / "suites"
    (suites / "tiny-v1").mkdir(parents=True)
    home.mkdir()
    (suites / "tiny-v1" / "suite.yaml").write_text(yaml.safe_dump(tiny_suite(1)))
    (home / "config.yaml").write_text(yaml.safe_dump({
        "suites_dir": str(suites), "suite": "tiny-v1", "sandbox": {"backend": "bwrap"},
        "swarm": {"adapter": "command", "timeout": 120, "command": ["python3", "-c", SWARM, kind]}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "ANTHROPIC_"))}
    p = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "bench", "--tier", "smoke",
                        "--variant", "mlx", "--swarm", "command"], env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Traceback" not in p.stdout + p.stderr
    [rec] = [r for r in map(json.loads, (home / "ledger" / "sessions.jsonl").read_text().splitlines())
             if r["kind"] == "session"]
    assert rec["functional"] is True and rec["dimensions"]["checks"] == "pass"  # the golden check ran, on the app
    doc = json.loads((home / "runs" / rec["session_id"] / "session.json").read_text())
    run = doc["turns"][0]["run"]
    assert run["report"] is None and "report: stdout is not JSON; no RunReport printed" in run["problems"]
    assert [c["name"] for c in doc["turns"][0]["verdict"]["dimensions"]["checks"]["data"]["results"]] == ["out_exists"]
