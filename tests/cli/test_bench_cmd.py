"""What ``swarmgym bench`` prints, as a user reads it: a header naming each column, one aligned row per job with
the app's name, ``overall`` and ``functional`` in two labelled columns, and a last line naming BENCHMARK.html
and the run folders."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.support.queue import tiny_bench_home

ENV = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "GOOSE_SWARM_"))}
# a command swarm prints no RunReport (overall fail: the swarm dimension fails); the second spec's writes no
# out.txt, so its one check fails too: functional yes/no side by side with overall fail
COMMAND = 'case "$0" in *touch-b*) ;; *) echo ok > out.txt;; esac'


def bench(home, *args):
    return subprocess.run([sys.executable, "-m", "swarmgym", "--root", str(home), "bench", *args],
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
