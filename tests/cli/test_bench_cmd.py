"""What ``swarmgym bench`` prints, as a user reads it: a header naming each column, one aligned row per job with
the app's name, ``overall`` and ``functional`` in two labelled columns, and a last line naming BENCHMARK.html
and the run folders."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from tests.support.queue import tiny_bench_home

ENV = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "GOOSE_SWARM_"))}
# a command swarm prints no RunReport (overall fail: the swarm dimension fails); the second spec's writes no
# out.txt, so its one check fails too: functional yes/no side by side with overall fail
COMMAND = 'case "$0" in *touch-b*) ;; *) echo ok > out.txt;; esac'


def bench(home, *args):
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "bench", *args],
                          capture_output=True, text=True, timeout=300, env=ENV)


def test_rows_line_up_under_a_header_with_the_app_and_overall_and_functional_apart(tmp_path):
    home = tmp_path / "home"
    tiny_bench_home(home, command=COMMAND, specs=3)
    r = bench(home, "--tier", "light", "--variant", "mlx", "--swarm", "command")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:4] == ["spec", "app", "rep", "overall"])
    header = lines[head]
    assert header.split() == ["spec", "app", "rep", "overall", "functional", "wall", "checks", "swarm", "cluster",
                              "diagnostics", "session"]
    assert "overall: the verdict over every dimension · functional: every golden check passed" in lines[head + 1]
    rows = [line for line in lines if line.lstrip()[:1].isdigit() and "s  " in line]
    assert len(rows) == 3
    for col in ("spec", "app", "overall", "functional", "checks", "swarm", "session"):
        at = header.index(col)
        assert all(row[at - 1] == " " and row[at] != " " for row in rows), (col, rows)  # each column starts aligned
    cells = {row.split()[1]: row.split() for row in rows}
    assert cells["touch"][2] == "touchapp" and cells["touch-c"][2] == "touchcapp"   # the app's name, not only the spec
    assert cells["touch"][4:6] == ["fail", "yes"] and cells["touch"][7:9] == ["pass", "fail"]  # the app works
    assert cells["touch-b"][4:6] == ["fail", "no"] and cells["touch-b"][7] == "fail"          # it does not
    assert "2/3 functional · 0/3 pass overall" in r.stdout
    assert lines[-1] == (f"open {home / 'runs' / 'BENCHMARK.html'} · each run: {home / 'runs'}/<session>/report.html "
                         f"· ledger {home / 'ledger'}")


def _start(home, *args):
    return subprocess.Popen([sys.executable, "-m", "swarmgym", "--home", str(home), "bench", *args], env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _sessions(home) -> int:
    p = home / "ledger" / "sessions.jsonl"
    return sum('"kind":"session"' in line.replace(" ", "") for line in p.read_text().splitlines()) if p.exists() else 0


def _wait(pred, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_sigterm_stops_bench_with_the_same_resume_hint_as_ctrl_c(tmp_path):
    home = tmp_path / "home"
    tiny_bench_home(home, command="sleep 60", specs=3)
    proc = _start(home, "--tier", "light")
    _wait(lambda: list((home / "apps").glob("*/*")), "the first job's workspace")
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    [plan] = (home / "runs" / "campaigns").glob("*.json")
    cid = json.loads(plan.read_text())["campaign_id"]
    assert proc.returncode == 143, out
    assert f"cut short by SIGTERM: 3 job(s) not recorded; finish with: swarmgym bench --resume {cid}" in out
    assert "Traceback" not in out


def test_a_resumed_campaign_counts_every_job_it_holds_not_only_the_ones_run_now(tmp_path):
    home = tmp_path / "home"
    # the first spec finishes at once, the other two hang: Ctrl-C once the first is recorded
    tiny_bench_home(home, command='echo ok > out.txt; case "$0" in *touch-b*|*touch-c*) sleep 60;; esac', specs=3)
    proc = _start(home, "--tier", "light")
    _wait(lambda: _sessions(home) == 1, "the first job's ledger record")
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, out
    cid = json.loads(next((home / "runs" / "campaigns").glob("*.json")).read_text())["campaign_id"]
    tiny_bench_home(home, specs=3)                                    # the same suite, a swarm that finishes
    done = bench(home, "--resume", cid)
    assert done.returncode == 0, done.stderr
    assert "3/3 functional · 0/3 pass overall · 2 job(s) run now, 1 recorded before" in done.stdout
    again = bench(home, "--resume", cid)
    assert again.returncode == 0, again.stderr
    assert ("3/3 functional · 0/3 pass overall · nothing left to run: all 3 of 3 job(s) were recorded before"
            in again.stdout)
    assert "cut short" not in again.stdout
