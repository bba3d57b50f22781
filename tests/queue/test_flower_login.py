"""Flower's login comes from its environment, never its command line (issue #33): the shipped Procfile's
flower line, run for real, keeps the password out of every process's argv (what `ps` shows) and still
refuses a request without it."""
from __future__ import annotations

import subprocess

import httpx
import psutil
import pytest

from swarmgym.testing.localredis import free_port
from tests.support.queue import port_open, procfile_command, wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]  # a real flower process

PASSWORD = "s3cret-not-in-ps"


def test_flower_reads_its_login_from_the_env_and_no_process_shows_it(home, fleet_factory):
    fleet = fleet_factory()
    port = free_port()
    flower = fleet.spawn("flower", ["sh", "-c", procfile_command("flower")],
                         {"FLOWER_BASIC_AUTH": f"tester:{PASSWORD}", "FLOWER_PORT": str(port)})
    wait_until(lambda: flower.popen.poll() is None and port_open(port), 120, what="flower listening")
    procs = [psutil.Process(flower.popen.pid), *psutil.Process(flower.popen.pid).children(recursive=True)]
    lines = [" ".join(p.cmdline()) for p in procs]
    assert any("flower" in x for x in lines)
    assert not [x for x in lines if PASSWORD in x], lines
    api = f"http://127.0.0.1:{port}/api/workers"
    assert httpx.get(api, timeout=10).status_code == 401
    assert httpx.get(api, auth=("tester", "wrong"), timeout=10).status_code == 401
    assert httpx.get(api, auth=("tester", PASSWORD), timeout=10).status_code == 200


def test_flower_without_a_login_refuses_to_start_in_one_line(home):
    p = subprocess.run(["sh", "-c", procfile_command("flower")], capture_output=True, text=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin", "FLOWER_PORT": str(free_port())})
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [p.stderr.strip()] and "FLOWER_BASIC_AUTH" in p.stderr
