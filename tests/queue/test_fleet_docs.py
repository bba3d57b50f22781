"""docs/fleet.md section 1 as written, on a fresh home (issue #33): `cp deploy/env.example .env`, the host
keys with `swarmgym hosts key`, the shipped Procfile under `swarmgym supervise`, a smoke campaign with
`enqueue --wait` — and one host's death stops none of the others (it is restarted on its own)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

import psutil
import pytest

from swarmgym.queue import liveness
from swarmgym.testing.localredis import free_port
from tests.support.queue import REPO, client, url, wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]  # the whole local stack


def test_the_local_stack_of_the_docs_runs_a_campaign_and_survives_a_host_dying(tmp_path, rdb):
    home = tmp_path / "checkout"
    home.mkdir()
    shutil.copy(REPO / "Procfile", home / "Procfile")
    shutil.copy(REPO / "deploy" / "env.example", home / ".env")  # `cp deploy/env.example .env`
    env = {**os.environ, "HOME": str(tmp_path / "user"), "SWARMGYM_QUEUE_BROKER_URL": url(),
           "FLOWER_BASIC_AUTH": "admin:pw", "FLOWER_PORT": str(free_port()), "SWARMGYM_SIM_TIME_SCALE": "0.002"}
    for k in ("SWARMGYM_HOME", "XDG_CONFIG_HOME", "SWARMGYM_QUEUE_HOST_KEY_FILE", "SWARMGYM_QUEUE_KEYRING_FILE"):
        env.pop(k, None)

    def sg(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        p = subprocess.run([sys.executable, "-m", "swarmgym", *args], cwd=home, env=env, capture_output=True,
                           text=True, timeout=timeout)
        assert p.returncode == 0, p.stderr + p.stdout
        return p

    sg("hosts", "key", "new", "sim-mlx")  # the docs' key steps, word for word
    key = str(tmp_path / "user" / ".config" / "swarmgym" / "host.key")
    sg("hosts", "key", "add", "sim-mlx", key)
    sg("hosts", "key", "add", "sim-gguf", key)
    sup = subprocess.Popen([sys.executable, "-m", "swarmgym", "supervise"], cwd=home, env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        r = client(0)
        wait_until(lambda: {"sim-mlx", "sim-gguf"} <= set(liveness.beats(r)), 120, 0.2, "both hosts beating")
        out = sg("enqueue", "--tier", "smoke", "--variant", "mlx", "--wait").stdout
        cid = out.split()[0]
        st = sg("status", cid).stdout
        assert "finalized" in st, st

        regs = liveness.registrations(r)
        mlx_pid, coord = int(regs["sim-mlx"]["pid"]), [h for h in regs if h.startswith("coordinator@")]
        others = {h: int(regs[h]["pid"]) for h in ("sim-gguf", *coord)}
        os.kill(mlx_pid, signal.SIGKILL)  # a host dies
        wait_until(lambda: int(liveness.registrations(r)["sim-mlx"]["pid"]) != mlx_pid, 120, 0.5,
                   "sim-mlx restarted by the supervisor")
        for h, pid in others.items():  # nothing else was stopped or restarted
            assert psutil.pid_exists(pid) and int(liveness.registrations(r)[h]["pid"]) == pid, h
        assert sup.poll() is None
        sg("enqueue", "--tier", "smoke", "--variant", "mlx", "--wait")  # and the fleet still works
    finally:
        sup.send_signal(signal.SIGTERM)
        try:
            out, _ = sup.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(sup.pid, signal.SIGKILL)
            out, _ = sup.communicate()
    assert sup.returncode == 0, out[-3000:]
    assert "mlx" in out and "exited with" in out and "the other processes keep running" in out
    assert "SWARMGYM_HOME" not in "".join(x for x in out.splitlines() if "no such folder" in x), out[-3000:]
