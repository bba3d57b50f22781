"""The shared subprocess runner: own process group, timeout kills everything, exit 124."""
from __future__ import annotations

import os
import sys
import textwrap
import time

import psutil

from swarmgym.adapters.runner import TIMEOUT_EXIT, run_process


def _script(tmp_path, body: str):
    p = tmp_path / "swarm.py"
    p.write_text(textwrap.dedent(body))
    return [sys.executable, str(p)]


def _alive(pids):
    out = []
    for pid in pids:
        try:
            p = psutil.Process(pid)
            if p.status() != psutil.STATUS_ZOMBIE:
                out.append(pid)
        except psutil.NoSuchProcess:
            pass
    return out


def test_timeout_kills_the_whole_group_including_a_child_that_left_the_session(tmp_path):
    pids = tmp_path / "pids"
    argv = _script(tmp_path, f"""
        import os, subprocess, sys, time
        kids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]),
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)]
        open({str(pids)!r}, "w").write(" ".join(str(k.pid) for k in kids))
        print("working", flush=True)
        time.sleep(600)
    """)
    start = time.monotonic()
    res = run_process(argv, tmp_path, dict(os.environ), timeout=1.5)
    assert res.exit_code == TIMEOUT_EXIT and res.timed_out
    assert time.monotonic() - start < 8
    assert res.stdout == "working\n"
    assert _alive(int(p) for p in pids.read_text().split()) == []


def test_children_left_behind_after_a_normal_exit_are_swept(tmp_path):
    pids = tmp_path / "pids"
    argv = _script(tmp_path, f"""
        import subprocess, sys
        kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open({str(pids)!r}, "w").write(str(kid.pid))
        print('{{"done": []}}')
    """)
    res = run_process(argv, tmp_path, dict(os.environ), timeout=30)
    assert res.exit_code == 0 and not res.timed_out
    assert _alive([int(pids.read_text())]) == []


def test_exit_code_stdout_and_stderr_tail_are_kept(tmp_path):
    argv = _script(tmp_path, """
        import sys
        print("x" * 100000, file=sys.stderr)
        print("the end", file=sys.stderr)
        print("out")
        sys.exit(3)
    """)
    res = run_process(argv, tmp_path, dict(os.environ), timeout=30)
    assert res.exit_code == 3 and res.stdout == "out\n"
    assert res.stderr_tail.endswith("the end\n") and len(res.stderr_tail) < 20000
