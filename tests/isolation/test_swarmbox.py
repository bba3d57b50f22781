"""The swarm's box holds its own disk: a workspace that cannot outgrow its budget while it runs, copied out
when the swarm ends — at its exit, at the deadline, whatever it did to its box."""
from __future__ import annotations

import json
import os
import time

import psutil

from tests.support.boxrun import run_swarm_script
from tests.support.hostile import require_bwrap, require_memory_cgroup
from tests.support.hostnet import watched_free_space

FILL = '''import os
f = open("fill.bin", "wb", buffering=0)
try:
    for _ in range(2048):  # 2 GB, a MB at a time
        f.write(b"x" * (1 << 20))
except OSError as e:
    print("stopped:", e.strerror)
'''


def test_a_swarm_writing_past_its_budget_stops_at_it_and_the_hosts_disk_never_sees_the_rest(tmp_path):
    require_bwrap()
    home = tmp_path / "home"
    home.mkdir()
    with watched_free_space(home) as free:
        res, ws = run_swarm_script(tmp_path, FILL, workspace_mb=16)
    assert res.exit_code == 0 and "stopped: No space left on device" in res.stdout, res.stderr_tail
    assert res.limits_hit == ["workspace over its 16 MB budget (sandbox.workspace_mb): writes past it failed with "
                              "'No space left on device' while the swarm ran"]
    assert (ws / "fill.bin").stat().st_size <= 16 << 20
    assert free[0] - min(free) < 512 << 20  # the swarm tried 2 GB: the host's disk never saw it


def test_the_box_starts_with_the_workspace_as_it_was_and_leaves_it_exactly_as_the_swarm_did(tmp_path):
    require_bwrap()
    ws = tmp_path / "home" / "apps" / "app" / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "old.py").write_text("old = 1\n")
    (ws / "keep.txt").write_text("kept\n")
    os.symlink("keep.txt", ws / "link")
    script = ('import os\nassert open("keep.txt").read() == "kept\\n" and os.readlink("link") == "keep.txt"\n'
              'os.remove("pkg/old.py")\nopen("pkg/new.py", "w").write("new = 1\\n")\n')
    res, _ = run_swarm_script(tmp_path, script, ws=ws)
    assert res.exit_code == 0, res.stderr_tail
    assert sorted(p.relative_to(ws).as_posix() for p in ws.rglob("*")) == ["keep.txt", "link", "pkg", "pkg/new.py"]
    assert res.limits_hit == [] and res.disk_budget


def test_at_the_deadline_everything_of_the_swarm_is_killed_and_its_workspace_still_copied_out(tmp_path):
    require_bwrap()
    token = f"sleeper-{os.getpid()}-{time.monotonic_ns()}"
    script = (f'import subprocess, time\nopen("started.txt", "w").write("yes")\n'
              f'subprocess.Popen(["setsid", "sleep", "300", "{token}"])\ntime.sleep(300)\n')
    t0 = time.monotonic()
    res, ws = run_swarm_script(tmp_path, script, timeout=3)
    assert res.timed_out and res.exit_code == 124
    assert (ws / "started.txt").read_text() == "yes"
    assert time.monotonic() - t0 < 30
    assert [p.pid for p in psutil.process_iter(["cmdline"]) if token in " ".join(p.info["cmdline"] or [])] == []


def test_a_swarm_cannot_kill_the_process_that_holds_its_box(tmp_path):
    require_bwrap()
    script = ('import os, signal, json\nresults = {}\nfor sig in (signal.SIGKILL, signal.SIGTERM):\n'
              '    try:\n        os.kill(1, sig)\n        results[sig.name] = "sent"\n'
              '    except OSError as e:\n        results[sig.name] = str(e)\n'
              'json.dump(results, open("kill.json", "w"))\n')
    res, ws = run_swarm_script(tmp_path, script)
    assert res.exit_code == 0, res.stderr_tail
    assert json.loads((ws / "kill.json").read_text())  # it tried, its init survived, and the workspace came out


def test_goose_state_beside_the_workspace_gets_a_disk_of_its_own_too(tmp_path):
    """Every writable folder is a budgeted disk: a swarm cannot fill the host through goose's per-job root."""
    require_bwrap()
    import sys

    from swarmgym.adapters.runner import run_process
    from swarmgym.config import load_config
    from swarmgym.isolation import swarm_policy
    from swarmgym.isolation.sandbox import scrubbed_env

    home = tmp_path / "home"
    cfg = load_config(home, environ={}, overrides={"sandbox.backend": "bwrap", "sandbox.workspace_mb": 8})
    ws, state = home / "apps" / "a" / "ws", home / "apps" / "a" / ".goose-state" / "ws"
    ws.mkdir(parents=True)
    (state / "config").mkdir(parents=True)
    (state / "config" / "config.yaml").write_text("GOOSE_PROVIDER: lmstudio\n")
    script = (f'import os\nassert open("{state}/config/config.yaml").read().startswith("GOOSE_PROVIDER")\n'
              f'os.makedirs("{state}/data/sessions")\n'
              f'try:\n    open("{state}/data/sessions/sessions.db", "wb").write(b"x" * (64 << 20))\n'
              'except OSError:\n    pass\n')
    res = run_process([sys.executable, "-c", script], ws, scrubbed_env(), 60,
                      policy=swarm_policy(cfg, ws, adapter="goose", writable=[state]), backend="bwrap")
    assert res.exit_code == 0, res.stderr_tail
    assert (state / "data" / "sessions" / "sessions.db").stat().st_size <= 8 << 20
    assert [x for x in res.limits_hit if x.startswith(f"the swarm's folder {state} over its 8 MB budget")]


def test_the_workspaces_pages_count_in_the_swarms_memory_cap(tmp_path):
    """A workspace within its disk budget but past the box's RAM cap: its tmpfs pages are the box's memory."""
    require_memory_cgroup()
    script = FILL.replace("range(2048)", "range(256)")  # 256 MB into a 1 GB workspace, RAM capped at 96 MB
    res, ws = run_swarm_script(tmp_path, script, workspace_mb=1024, swarm_ram_mb=96)
    assert res.oom_kills >= 1, (res.exit_code, res.stdout, res.stderr_tail)
    assert not (ws / "fill.bin").exists() or (ws / "fill.bin").stat().st_size < 96 << 20
