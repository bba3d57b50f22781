"""Golden values stay outside the app's box, and a correct app is graded functional however it exits.

Through ``swarmgym verify`` (and one ``swarmgym bench`` with a hostile command swarm) on bench-v2's
``crud`` spec (invtrack):

- an app that builds nothing but patches the differential driver from inside its rows, forges the
  driver's output line and loots every process of the box passes no golden row and saves no golden
  value;
- (bench-v4) a forged result line followed by half a line hides neither the driver's nor the
  probe's own result line;
- the reference app ending with ``os._exit(status)`` after a flush is graded functional;
- a reference app with three poisoned rows (one hangs, one fork-bombs, one allocates 3 GB) fails
  exactly those three rows; the other rows still match and nothing is left running.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
import yaml

from swarmgym.config import load_config
from swarmgym.suitekit.suite import load_suite, materialize
from tests.support.attacks import CRUD, peek
from tests.support.grading import check_results
from tests.support.hostile import require_bwrap

SUITE = load_suite("bench-v2")
SPEC = SUITE.spec("crud")
TABLE = json.loads((SUITE.root / "tables" / "invtrack.json").read_text())

PATCHER = '''
import glob, json, os, sys

def _attack():
    with open("/proc/1/cmdline", "rb") as f:
        if b"bwrap" not in f.read():
            return  # this payload writes to every process's stdout it can reach: never outside a box
    loot = {}
    main = sys.modules.get("__main__")
    if main is not None:
        loot["driver_globals"] = {k: repr(v)[:200000] for k, v in list(vars(main).items())}
        for name in ("run_step", "read_capture", "read_back", "files_read", "steps_process", "fork_steps"):
            if hasattr(main, name):  # every step "succeeds" from now on, whatever it is asked
                setattr(main, name, lambda *a, **k: 0)
        for name in ("run_row", "step_problem", "file_problem", "row_problem"):  # and no row has a problem
            if hasattr(main, name):  # (the in-process driver of the first round compared rows right here)
                setattr(main, name, lambda *a, **k: None)
    for path in glob.glob("/proc/[0-9]*"):
        for what in ("cmdline", "environ", "fd/0", "mem"):
            try:  # without blocking: another process's stdin is a pipe that may stay empty
                fd = os.open(os.path.join(path, what), os.O_RDONLY | os.O_NONBLOCK)
                try:
                    loot[path + "/" + what] = os.read(fd, 1 << 20).decode("utf-8", "replace")
                finally:
                    os.close(fd)
            except OSError as e:
                loot[path + "/" + what] = "blocked: %s" % e
    fake = "SWARMGYM-DIFF " + json.dumps({"rows": [{"n": n, "steps": [{"code": 0, "out": "", "err": "", "files": {}}] * 9}
                                                   for n in range(200)]})
    for path in glob.glob("/proc/[0-9]*/fd/1"):
        try:
            with open(path, "a") as f:
                f.write(fake + "\\n")
            loot["forged " + path] = "written"
        except OSError as e:
            loot["forged " + path] = "blocked: %s" % e
    import runpy
    runpy.run_module = lambda *a, **k: None
    with open(os.path.join(os.getcwd(), "loot-%d.json" % os.getpid()), "w") as f:
        json.dump(loot, f)

_attack()
'''


def golden_values() -> set[str]:
    """Golden stdout lines of the crud table that appear in no row's inputs (what a thief would want)."""
    inputs = json.dumps([[s["argv"], s.get("stdin")] for r in TABLE["rows"] for s in r["steps"]])
    out = set()
    for r in TABLE["rows"]:
        for s in r["steps"]:
            v = s.get("stdout")
            if v is None or s["out"] == "any":
                continue
            for line in (v if isinstance(v, str) else json.dumps(v)).splitlines():
                if len(line.strip()) >= 8 and line.strip() not in inputs:
                    out.add(line.strip())
    assert len(out) > 10
    return out


def verify(ws: Path, home: Path, **env_extra: str) -> dict:
    env = {**os.environ, "SWARMGYM_HOME": str(home), **env_extra}
    res = subprocess.run([sys.executable, "-m", "swarmgym", "verify", "--suite", "bench-v2", "--spec", "crud",
                          "--isolation", "bwrap", "--json", str(ws)], env=env, capture_output=True, text=True,
                         timeout=900, check=False)
    assert res.returncode in (0, 1), res.stdout + res.stderr
    out = json.loads(res.stdout)
    out["exit"] = res.returncode
    out["by_name"] = {c["name"]: c for c in out["dimensions"]["checks"]["checks"]}
    return out


def reference(ws: Path) -> Path:
    materialize(SUITE, SPEC, ws)
    return ws


@pytest.mark.slow
def test_an_app_that_patches_the_driver_and_forges_its_output_passes_no_row_and_steals_no_golden_value(tmp_path):
    require_bwrap()
    ws = tmp_path / "ws"
    (ws / "invtrack").mkdir(parents=True)
    (ws / "invtrack" / "__init__.py").write_text(PATCHER)
    (ws / "invtrack" / "__main__.py").write_text("print('ok')\n")
    out = verify(ws, tmp_path)
    golden = out["by_name"]["golden_table"]
    assert out["exit"] == 1 and not golden["passed"]
    assert f"{len(TABLE['rows'])}/{len(TABLE['rows'])} golden rows differ" in golden["detail"], golden["detail"]
    loot = [p.read_text() for p in ws.glob("loot-*.json")]
    assert loot, "the attack never ran"
    stolen = [g for g in golden_values() if any(g in text for text in loot)]
    assert stolen == []
    driver = [json.loads(t) for t in loot]
    assert all(v.startswith("blocked") for d in driver for k, v in d.items() if k.endswith("/mem"))


@pytest.mark.slow
def test_a_reference_app_that_ends_with_os_exit_after_a_flush_is_functional(tmp_path):
    require_bwrap()
    ws = reference(tmp_path / "ws")
    (ws / "invtrack" / "__main__.py").write_text(
        "import os, sys\n\nfrom invtrack.cli import main\n\nstatus = main()\nsys.stdout.flush()\nsys.stderr.flush()\n"
        "os._exit(status or 0)\n")
    out = verify(ws, tmp_path)
    assert out["exit"] == 0 and out["functional"] is True, {k: c["detail"] for k, c in out["by_name"].items()
                                                              if not c["passed"]}
    assert out["by_name"]["golden_table"]["detail"] == f"{len(TABLE['rows'])}/{len(TABLE['rows'])} golden rows match"


POISON = '''
import os, sys, time
if "Washer" in sys.argv:
    time.sleep(3600)
if "Hex Bolt" in sys.argv:
    while True:
        os.fork()
if "Free" in sys.argv:
    hog = bytearray(3 << 30)
'''


@pytest.mark.slow
def test_a_row_that_hangs_forkbombs_or_allocates_3_gb_fails_alone(tmp_path):
    require_bwrap()
    ws = reference(tmp_path / "ws")
    main = ws / "invtrack" / "__main__.py"
    main.write_text(POISON + main.read_text())
    # the hung row is killed at its step's limit, on the fast path and again when confirmed: short limits
    # (2 s and 3 s, not 10 s and 30 s) make it wait less; the other rows finish well within them
    out = verify(ws, tmp_path, SWARMGYM_CHECKS_STEP_TIMEOUT="2", SWARMGYM_CHECKS_CONFIRM_TIMEOUT="3")
    golden = out["by_name"]["golden_table"]
    detail = golden["detail"]
    assert detail.startswith(f"3/{len(TABLE['rows'])} golden rows differ: "), detail
    assert "fix05 " in detail and "fix06 " in detail and "fix07 " in detail and "timed out after 3 s" in detail
    assert not golden["timed_out"]  # the rows' troubles ended with their rows, not with the check's whole box
    assert [n for n, c in out["by_name"].items() if not c["passed"]] == ["golden_table"]  # no other check paid
    left = [p for p in psutil.process_iter(["cwd"]) if (p.info["cwd"] or "").startswith(str(ws))]
    assert left == []


@pytest.mark.slow
def test_bench_records_a_driver_patching_app_as_not_functional(tmp_path):
    """A hostile command swarm that "builds" the patching app, through ``swarmgym bench``."""
    require_bwrap()
    app = tmp_path / "app"
    (app / "invtrack").mkdir(parents=True)
    (app / "invtrack" / "__init__.py").write_text(PATCHER)
    (app / "invtrack" / "__main__.py").write_text("print('ok')\n")
    home = tmp_path / "home"
    home.mkdir()
    swarm = [sys.executable, "-c", "import shutil, sys; shutil.copytree(sys.argv[1], '.', dirs_exist_ok=True)", str(app)]
    (home / "config.yaml").write_text(yaml.safe_dump({"swarm": {"adapter": "command", "command": swarm, "timeout": 60},
                                                      "sandbox": {"backend": "bwrap"}}))
    env = {**os.environ, "SWARMGYM_HOME": str(home)}
    res = subprocess.run([sys.executable, "-m", "swarmgym", "bench", "--tier", "smoke", "--variant", "mlx",
                          "--swarm", "command"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900,
                         check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    [rec] = [json.loads(x) for x in (home / "ledger" / "sessions.jsonl").read_text().splitlines()
             if json.loads(x).get("kind") == "session"]
    assert rec["spec"] == "crud" and rec["functional"] is False
    doc = json.loads(next((home / "runs").glob("*/session.json")).read_text())
    results = {c["name"]: c for c in doc["turns"][0]["verdict"]["dimensions"]["checks"]["data"]["results"]}
    assert not results["golden_table"]["passed"] and "golden rows differ" in results["golden_table"]["detail"]
    assert not [g for g in golden_values() for p in (home / "apps").rglob("loot-*.json") if g in p.read_text()]
    shutil.rmtree(home / "apps", ignore_errors=True)


def test_a_forged_result_line_left_half_finished_does_not_hide_the_drivers_or_the_probes_own(tmp_path):
    """The fast twin of the peek through ``bench`` (tests/security/test_attacks_through_bench.py): every command
    appends a whole forged driver result and then half a line to every stdout of the box; the driver's and the
    probe's own result lines still come last and whole, so the wrong value fails and the failing tests are the app's."""
    require_bwrap()
    cfg = load_config(tmp_path / "home", environ={}, overrides={"sandbox.backend": "bwrap"})
    checks = [c for c in CRUD.checks if c.name in ("total_value", "tests_pass")]
    got = {r.name: r for r in check_results(checks, peek(tmp_path / "ws"), cfg)}
    assert {n: (r.passed, r.error) for n, r in got.items()} == {"total_value": (False, None), "tests_pass": (False, None)}
    assert "want only '25.00'" in got["total_value"].detail
    assert "Total value: 25.00" not in got["total_value"].detail.split("want only")[0]  # neither found nor forged
    assert got["tests_pass"].detail.startswith("pytest exit status 1"), got["tests_pass"].detail
