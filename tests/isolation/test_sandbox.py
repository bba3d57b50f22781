"""The sandbox that runs model-written code: process groups, timeouts, secrets, limits, output caps."""
from __future__ import annotations

import os
import random
import sys
import time

import psutil
import pytest

from swarmgym.config import load_config
from swarmgym.isolation.sandbox import Limits, run_sandboxed, scrubbed_env


def _alive(pred) -> list[psutil.Process]:
    """Processes matching ``pred`` that are still running (zombies are dead: they hold no resources)."""
    out = []
    for p in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            if p.info["status"] != psutil.STATUS_ZOMBIE and pred(p):
                out.append(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return out


def _in_group(pgid: int):
    def pred(p: psutil.Process) -> bool:
        try:
            return os.getpgid(p.pid) == pgid
        except ProcessLookupError:
            return False
    return pred


def test_hanging_command_and_its_background_child_are_killed_with_the_group(tmp_path):
    marker = f"{300 + random.randint(1, 9999) / 10000:.4f}"  # a sleep argument unique to this test
    start = time.monotonic()
    res = run_sandboxed(f"echo $$; sleep {marker} & sleep {marker}", tmp_path, timeout=1.0)
    elapsed = time.monotonic() - start

    assert res.timed_out and res.exit_code is None
    assert elapsed < 1.0 + 5
    pgid = int(res.stdout_tail.strip())
    time.sleep(0.2)
    assert _alive(lambda p: marker in (p.info["cmdline"] or [])) == []
    assert _alive(_in_group(pgid)) == []


def test_background_child_left_by_a_finished_command_is_swept(tmp_path):
    marker = f"{400 + random.randint(1, 9999) / 10000:.4f}"
    res = run_sandboxed(f"sleep {marker} >/dev/null 2>&1 & echo started", tmp_path, timeout=10)
    assert res.exit_code == 0 and not res.timed_out
    time.sleep(0.2)
    assert _alive(lambda p: marker in (p.info["cmdline"] or [])) == []


def test_app_printing_its_environment_sees_no_secrets(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-should-never-leak")
    monkeypatch.setenv("LAB_CREDENTIAL", "configured-secret-value")
    monkeypatch.setenv("SWARMGYM_TEST_VISIBLE", "plain-value")
    res = run_sandboxed(f"{sys.executable} -c 'import os; print(dict(os.environ))'", tmp_path,
                        timeout=20, extra_secrets={"LAB_CREDENTIAL"})
    assert res.exit_code == 0
    assert "plain-value" in res.stdout_tail          # the environment was printed ...
    assert "sk-ant-should-never-leak" not in res.stdout_tail   # ... without the API key
    assert "ANTHROPIC_API_KEY" not in res.stdout_tail
    assert "configured-secret-value" not in res.stdout_tail    # ... or the configured secret


def test_env_extra_cannot_smuggle_a_secret_in(tmp_path):
    res = run_sandboxed("env", tmp_path, timeout=10, env_extra={"GITHUB_TOKEN": "ghp_x", "APP_MODE": "bench"})
    assert "APP_MODE=bench" in res.stdout_tail
    assert "ghp_x" not in res.stdout_tail


def test_scrubbed_env_puts_the_harness_python_first():
    env = scrubbed_env(base={"PATH": "/usr/bin", "DB_PASSWORD": "x", "HOME": "/root"})
    assert env["PATH"].split(os.pathsep)[0] == os.path.dirname(sys.executable)
    assert "DB_PASSWORD" not in env and env["HOME"] == "/root"


def test_a_check_box_sees_none_of_the_hosts_python_or_pytest_steering_but_checks_env(tmp_path, monkeypatch):
    """An operator's PYTEST_ADDOPTS (say a --junitxml into their own folder) once made every app's own tests
    fail in the box: what steers Python or pytest stays outside; ``checks.env`` still reaches the check."""
    for name, value in {"PYTEST_ADDOPTS": f"--junitxml={tmp_path}/x.xml", "PYTHONSTARTUP": "/etc/passwd",
                        "PYTHONWARNINGS": "error", "PYTHONPATH": "/nowhere", "LANG": "C.UTF-8"}.items():
        monkeypatch.setenv(name, value)
    res = run_sandboxed("env", tmp_path, timeout=30, env_extra={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    names = {line.split("=", 1)[0] for line in res.stdout_tail.splitlines()}
    assert res.exit_code == 0
    assert not names & {"PYTEST_ADDOPTS", "PYTHONSTARTUP", "PYTHONWARNINGS", "PYTHONPATH"}
    assert {"PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTHONDONTWRITEBYTECODE", "LANG"} <= names


def test_memory_hog_hits_the_default_limit_and_fails(tmp_path):
    limits = Limits.from_config(load_config(tmp_path, environ={}).checks)  # the shipped default, 2 GiB
    hog = f"{sys.executable} -c 'b = bytearray(4 * 1024 ** 3); print(\"allocated\")'"
    res = run_sandboxed(hog, tmp_path, timeout=60, limits=limits)
    assert res.exit_code not in (0, None)
    assert "allocated" not in res.stdout_tail
    assert "MemoryError" in res.stderr_tail


def test_cpu_limit_stops_a_busy_loop(tmp_path):
    res = run_sandboxed(f"{sys.executable} -c 'while True: pass'", tmp_path, timeout=30,
                        limits=Limits(cpu_secs=1))
    assert not res.timed_out and res.exit_code not in (0, None)
    assert res.duration_s < 15


def test_file_size_limit_stops_a_huge_write(tmp_path):
    res = run_sandboxed("head -c 5000000 /dev/zero > big.bin", tmp_path, timeout=30,
                        limits=Limits(file_size_mb=1))
    assert res.exit_code != 0
    assert (tmp_path / "big.bin").stat().st_size <= 1024 * 1024


def test_output_cap_keeps_the_tail(tmp_path):
    res = run_sandboxed("seq 1 100000; seq 1 5000 >&2", tmp_path, timeout=20, output_cap=1000)
    assert res.stdout_tail.endswith("99999\n100000\n")
    assert "\n50000\n" not in res.stdout_tail
    assert len(res.stdout_tail.encode()) <= 1000 + len("…".encode())
    assert res.stdout_tail.startswith("…")
    assert res.stderr_tail.endswith("5000\n")


def test_command_runs_in_the_workspace_with_no_stdin(tmp_path):
    (tmp_path / "marker.txt").write_text("here")
    res = run_sandboxed("cat marker.txt && cat", tmp_path, timeout=5)
    assert res.exit_code == 0 and res.stdout_tail == "here"


@pytest.mark.parametrize("code", [0, 3])
def test_exit_code_is_reported(tmp_path, code):
    assert run_sandboxed(f"exit {code}", tmp_path, timeout=5).exit_code == code


def test_child_that_escapes_the_group_with_setsid_is_still_killed(tmp_path):
    marker = f"{500 + random.randint(1, 9999) / 10000:.4f}"
    res = run_sandboxed(f"setsid sleep {marker} >/dev/null 2>&1 & sleep 30", tmp_path, timeout=1.0)
    assert res.timed_out
    time.sleep(0.2)
    assert _alive(lambda p: marker in (p.info["cmdline"] or [])) == []


def test_broker_password_and_flower_login_never_reach_a_check(tmp_path, monkeypatch):
    monkeypatch.setenv("SWARMGYM_BROKER_URL", "redis://:hunter2@127.0.0.1:6379/0")
    monkeypatch.setenv("FLOWER_BASIC_AUTH", "admin:flowerpw")
    monkeypatch.setenv("SOME_DSN", "postgresql://app:dbpass@localhost/app")
    res = run_sandboxed(f"{sys.executable} -c 'import os; print(dict(os.environ))'", tmp_path, timeout=20)
    assert res.exit_code == 0 and "PATH" in res.stdout_tail
    for leaked in ("hunter2", "flowerpw", "dbpass"):
        assert leaked not in res.stdout_tail
