"""``bench`` says how to finish a campaign only when it was cut short (issue #22)."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from tests.support.trend import ENV, swarmgym, write_home


def test_a_bench_that_finished_prints_no_resume_hint(tiny_home):
    r = swarmgym(tiny_home, "bench", "--tier", "light", "--variant", "mlx")
    assert r.returncode == 0, r.stderr
    assert "1/1 functional" in r.stdout
    assert "--resume" not in r.stdout and "cut short" not in r.stdout


def test_a_bench_interrupted_mid_campaign_says_how_to_finish_it(tiny_home):
    write_home(tiny_home, ["sh", "-c", "sleep 60", "{prompt}"])
    proc = subprocess.Popen([sys.executable, "-m", "swarmgym", "--home", str(tiny_home), "bench", "--tier", "medium"],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not list((tiny_home / "apps").glob("*/*")):
        time.sleep(0.2)  # the first job's workspace exists: the swarm is running
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, out
    [plan] = (tiny_home / "runs" / "campaigns").glob("*.json")
    cid = json.loads(plan.read_text())["campaign_id"]
    assert f"finish with: swarmgym bench --resume {cid}" in out
    assert "15 job(s) not recorded" in out
    assert "Traceback" not in out
