"""Resource caps per box: a check or a swarm that fills its tmpfs, its RAM or its workspace gets a
clear reason in its verdict, and the host is left as it was (no process left, no box waiting out its timeout).

The memory cap is a cgroup (RAM + tmpfs pages of the whole box): tests that need it skip where no
memory controller is writable (it is, for root, on this project's machines and CI).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import yaml

from swarmgym.config import load_config
from swarmgym.suitekit.suite import Check
from tests.support.grading import check_result
from tests.support.hostile import require_bwrap, require_memory_cgroup
from tests.support.hostnet import watched_free_space
from tests.support.queue import tiny_suite

HOG = ("python3 -c 'import os, time\n"
       "for _ in range({n}):\n"
       "    if os.fork() == 0:\n"
       "        b = bytearray({mb} << 20); b[::4096] = b\"x\" * len(b[::4096]); time.sleep(30); os._exit(0)\n"
       "os.wait(); print(\"survived\")'")


def _alive(token: str) -> list[int]:
    out = []
    for p in psutil.process_iter(["cmdline", "status"]):
        try:
            if p.info["status"] != psutil.STATUS_ZOMBIE and token in " ".join(p.info["cmdline"] or []):
                out.append(p.pid)
        except psutil.Error:
            continue
    return out


def _cfg(tmp_path: Path, **checks):
    return load_config(tmp_path, environ={}, overrides={"sandbox.backend": "bwrap",
                                                        **{f"checks.{k}": v for k, v in checks.items()}})


def test_a_check_that_fills_its_tmpfs_fails_with_the_cap_named(tmp_path):
    require_bwrap()
    ws = tmp_path / "ws"
    ws.mkdir()
    check = Check(name="fill_tmp", kind="command_succeeds", run="head -c 2000000000 /dev/zero > /tmp/fill")
    res = check_result(check, ws, _cfg(tmp_path, tmpfs_mb=32))
    assert not res.passed and "No space left on device" in res.detail and "32 MB, checks.tmpfs_mb" in res.detail
    assert not res.timed_out  # it stopped at the full tmpfs, not at the check's timeout


def test_a_check_that_fills_its_ram_fails_with_the_memory_cap_named_and_leaves_nothing(tmp_path):
    require_memory_cgroup()
    ws = tmp_path / "ws"
    ws.mkdir()
    token = f"hog-{os.getpid()}-{time.monotonic_ns()}"
    check = Check(name="hog", kind="command_succeeds", run=HOG.format(n=4, mb=100) + f" # {token}")
    res = check_result(check, ws, _cfg(tmp_path, ram_mb=160))
    assert not res.passed
    assert res.detail.startswith("check exceeded its memory cap (160 MB)"), res.detail
    assert _alive(token) == []


@pytest.mark.slow
def test_verify_names_the_memory_cap_when_an_app_blows_it(tmp_path):
    """Through ``swarmgym verify``: an app whose every command forks memory hogs."""
    require_memory_cgroup()
    from swarmgym.suitekit.suite import load_suite, materialize

    suite = load_suite("bench-v1")
    spec = suite.specs[0]
    ws = tmp_path / "ws"
    materialize(suite, spec, ws)
    init = ws / spec.app_slug / "__init__.py"
    init.write_text("import os, time\n"
                    "if os.environ.get('SWARMGYM_CHECK_ID'):\n"
                    "    app = os.getpid()\n"
                    "    for _ in range(4):\n"
                    "        if os.fork() == 0:\n"
                    "            b = bytearray(100 << 20); b[::4096] = b'x' * len(b[::4096])\n"
                    "            for _ in range(50):  # each hog holds its 100 MB while the app runs (1 s at most)\n"
                    "                if os.getppid() != app:\n"
                    "                    break\n"
                    "                time.sleep(0.02)\n"
                    "            os._exit(0)\n"
                    + init.read_text())
    env = {**os.environ, "SWARMGYM_HOME": str(tmp_path), "SWARMGYM_CHECKS_RAM_MB": "160"}
    res = subprocess.run([sys.executable, "-m", "swarmgym", "verify", "--suite", "bench-v1", "--spec", spec.id,
                          "--isolation", "bwrap", "--json", str(ws)], env=env, capture_output=True, text=True,
                         timeout=900, check=False)
    assert res.returncode == 1, res.stdout + res.stderr
    checks = json.loads(res.stdout)["dimensions"]["checks"]["checks"]
    capped = [c for c in checks if "exceeded its memory cap (160 MB)" in c["detail"]]
    assert capped, [c["detail"] for c in checks]
    assert [c["name"] for c in checks if c["timed_out"]] == []  # each box ended with its app, not at the timeout


def tiny_suite_config(root: Path) -> dict:
    """Config keys selecting ``tiny-v1`` (one spec, one file check), written under ``root``: the swarm tests are
    about the swarm's box, and a bench-suite job would spend most of their time grading an app never built."""
    (root / "suites" / "tiny-v1").mkdir(parents=True)
    (root / "suites" / "tiny-v1" / "suite.yaml").write_text(yaml.safe_dump(tiny_suite(1)))
    return {"suites_dir": str(root / "suites"), "suite": "tiny-v1"}


SWARM = '''import os, sys, time
try:
    with open("big.bin", "wb") as f:
        f.write(b"\\0" * (40 << 20))
except OSError:  # the workspace's disk is full at its budget: a swarm carries on
    pass
if os.fork() == 0:
    b = bytearray(400 << 20)
    b[::4096] = b"x" * len(b[::4096])
    time.sleep(30)
    os._exit(0)
os.wait()
'''


@pytest.mark.slow
def test_a_swarm_over_its_memory_cap_and_workspace_budget_fails_with_both_reasons(tmp_path):
    """Through ``swarmgym bench`` (tiny-v1): a command swarm that allocates 400 MB (cap 128) and leaves 40 MB
    (budget 16)."""
    require_memory_cgroup()
    home = tmp_path / "home"
    home.mkdir()
    script = tmp_path / "swarm.py"
    script.write_text(SWARM)
    (home / "config.yaml").write_text(yaml.safe_dump({
        **tiny_suite_config(tmp_path),
        "swarm": {"adapter": "command", "command": [sys.executable, str(script), "{prompt}"], "timeout": 120},
        "sandbox": {"backend": "bwrap", "swarm_ram_mb": 128, "workspace_mb": 16}, "checks": {"timeout": 30}}))
    env = {**os.environ, "SWARMGYM_HOME": str(home)}
    res = subprocess.run([sys.executable, "-m", "swarmgym", "bench", "--tier", "smoke", "--variant", "mlx",
                          "--swarm", "command"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900,
                         check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    doc = json.loads(next((home / "runs").glob("*/session.json")).read_text())
    run = doc["turns"][0]["run"]
    assert any(x.startswith("the swarm exceeded its memory cap (128 MB") for x in run["limits_hit"]), run["limits_hit"]
    assert any("over its 16 MB budget" in x for x in run["limits_hit"]), run["limits_hit"]
    swarm = doc["turns"][0]["verdict"]["dimensions"]["swarm"]
    assert swarm["status"] == "fail" and "memory cap" in swarm["summary"]
    assert doc["overall"] == "fail"


FILL = '''import sys
f = open("fill.bin", "wb", buffering=0)
try:
    for _ in range(2048):  # 2 GB, a MB at a time, each file under the file-size limit
        f.write(b"x" * (1 << 20))
except OSError as e:
    print("stopped:", e.strerror)
'''


@pytest.mark.slow
def test_a_swarm_writing_past_its_workspace_budget_is_recorded_with_that_reason_and_the_hosts_disk_never_fills(tmp_path):
    """Through ``swarmgym bench`` (tiny-v1): a command swarm tries to write 2 GB into a workspace of 16 MB, while
    the test watches the free space of the disk the home is on."""
    require_bwrap()
    home = tmp_path / "home"
    home.mkdir()
    script = tmp_path / "swarm.py"
    script.write_text(FILL)
    (home / "config.yaml").write_text(yaml.safe_dump({
        **tiny_suite_config(tmp_path),
        "swarm": {"adapter": "command", "command": [sys.executable, str(script), "{prompt}"], "timeout": 120},
        "sandbox": {"backend": "bwrap", "workspace_mb": 16}, "checks": {"timeout": 30}}))
    with watched_free_space(home) as free:
        res = subprocess.run([sys.executable, "-m", "swarmgym", "bench", "--tier", "smoke", "--variant", "mlx",
                              "--swarm", "command"], env={**os.environ, "SWARMGYM_HOME": str(home)}, cwd=tmp_path,
                             capture_output=True, text=True, timeout=900, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    assert free[0] - min(free) < 512 << 20  # 2 GB attempted; the host's disk never saw it
    doc = json.loads(next((home / "runs").glob("*/session.json")).read_text())
    run = doc["turns"][0]["run"]
    assert "stopped: No space left on device" in run["stdout_tail"]
    assert run["limits_hit"] == ["workspace over its 16 MB budget (sandbox.workspace_mb): writes past it failed with "
                                 "'No space left on device' while the swarm ran"]
    swarm = doc["turns"][0]["verdict"]["dimensions"]["swarm"]
    assert swarm["status"] == "fail" and "workspace over its 16 MB budget" in swarm["summary"]
    [rec] = [r for r in map(json.loads, (home / "ledger" / "sessions.jsonl").read_text().splitlines())
             if r["kind"] == "session"]
    assert rec["dimensions"]["swarm"] == "fail" and rec["overall"] == "fail"
    [fill] = list((home / "apps").rglob("fill.bin"))
    assert fill.stat().st_size <= 16 << 20  # what the box held is what came out
