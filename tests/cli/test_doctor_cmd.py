"""``swarmgym doctor`` as a new user runs it: every check passing on a ready machine, and each one failing
for its real cause (no bwrap on PATH, user namespaces refused, nothing listening on the broker URL, a ledger
folder this user cannot write, no goose, a pool endpoint that does not answer, no keys, too little disk),
with the fix it suggests; exit 0 only when all pass."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from swarmgym.testing.localredis import free_port
from swarmgym.trust import hostkeys
from tests.support.goose import goose_wrapper
from tests.support.queue import url

BIN = str(Path(sys.executable).parent)
ENV = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "GOOSE_"))}


@pytest.fixture
def ready(tmp_path, redis_server):
    """A home that has everything: the session's Redis, a host key and a keyring outside the home."""
    home, user = tmp_path / "home", tmp_path / "user"
    home.mkdir()
    user.mkdir()
    (home / "config.yaml").write_text(yaml.safe_dump({"queue": {"broker_url": url()}}))
    env = {**ENV, "HOME": str(user), "XDG_CONFIG_HOME": str(user / ".config")}
    # what `hosts key new h1` and `hosts key add h1 FILE` write (tests/trust test those commands), without two
    # CLI start-ups per test
    keys = hostkeys.config_dir(env)
    hostkeys.trust(keys / "keyring", "h1", hostkeys.new_key_file(keys / "host.key", "h1"))
    return home, env


def doctor(home, env, *args, prefix=()):
    return subprocess.run([*prefix, sys.executable, "-m", "swarmgym", "--home", str(home), "doctor", *args],
                          env={**env, "COLUMNS": "160"}, capture_output=True, text=True, timeout=120)


def checks(r) -> dict[str, dict]:
    assert "Traceback" not in r.stderr, r.stderr
    return {c["name"]: c for c in json.loads(r.stdout)["checks"]}


def test_a_ready_machine_passes_every_check_on_one_screen_and_exits_0(ready):
    home, env = ready
    r = doctor(home, env)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "9 of 9 checks pass; ready to run" and len(lines) < 25
    for name in ("python", "isolation", "swarm", "pool", "broker", "host key", "keyring", "ledger", "disk"):
        assert any(line.split()[:2] == ["ok", name.split()[0]] for line in lines), (name, r.stdout)
    got = checks(doctor(home, env, "--json"))
    assert {n: c["status"] for n, c in got.items()} == dict.fromkeys(got, "pass")
    assert "a test box started" in got["isolation"]["found"] and "swarmgym-sim 0.1.0" in got["swarm"]["found"]
    assert "trusts 1 host(s): h1" in got["keyring"]["found"]


def test_no_bwrap_on_path_fails_isolation_with_the_install_line(ready):
    home, env = ready
    r = doctor(home, {**env, "PATH": BIN}, "--json")
    assert r.returncode == 1
    iso = checks(r)["isolation"]
    assert iso["status"] == "fail" and "bwrap not found on PATH" in iso["found"]
    assert "apt-get install bubblewrap" in iso["fix"]
    table = doctor(home, {**env, "PATH": BIN})
    assert "FAIL  isolation" in table.stdout and "→ install bubblewrap" in table.stdout
    assert "to fix: isolation" in table.stdout.splitlines()[-1]


@pytest.mark.skipif(shutil.which("unshare") is None or shutil.which("bwrap") is None, reason="needs unshare, bwrap")
def test_bwrap_installed_but_user_namespaces_refused_fails_isolation_with_the_sysctl(ready):
    """A real kernel refusal: a user namespace of its own whose max_user_namespaces is 0, so bubblewrap
    cannot create the box's namespace (installed is not enough: doctor starts a box)."""
    home, env = ready
    probe = subprocess.run(["unshare", "-U", "-r", "--mount", "--pid", "--fork", "--mount-proc", "true"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"unshare cannot make a user namespace here: {probe.stderr.decode().strip()}")
    inner = ("echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"")
    r = doctor(home, env, "--json", prefix=["unshare", "-U", "-r", "--mount", "--pid", "--fork", "--mount-proc",
                                            "sh", "-c", inner, "sh"])
    iso = checks(r)["isolation"]
    assert r.returncode == 1 and iso["status"] == "fail"
    assert "bwrap cannot create a box here" in iso["found"] and "unprivileged_userns_clone" in iso["fix"]


def test_nothing_listening_on_the_broker_url_fails_broker_with_where_to_point_it(ready):
    home, env = ready
    dead = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    r = doctor(home, {**env, "SWARMGYM_QUEUE_BROKER_URL": dead}, "--json")
    b = checks(r)["broker"]
    assert r.returncode == 1 and b["status"] == "fail" and "does not answer (ConnectionError" in b["found"]
    assert "hunter2" not in r.stdout and ":***@127.0.0.1" in b["found"]
    assert "SWARMGYM_QUEUE_BROKER_URL" in b["fix"] and b["needed_for"] == "the fleet"


def test_a_ledger_folder_this_user_cannot_write_fails_ledger(ready):
    home, env = ready
    (home / "ledger").mkdir()
    (home / "ledger").chmod(0o555)
    # root writes anywhere; in a user namespace of its own (no mapping) root is held to the owner's bits
    prefix = ["unshare", "-U"] if os.geteuid() == 0 else []
    if prefix and subprocess.run([*prefix, "true"]).returncode != 0:
        pytest.skip("running as root and unshare -U is refused: no way to be held to the folder's mode")
    r = doctor(home, env, "--json", prefix=prefix)
    led = checks(r)["ledger"]
    assert r.returncode == 1 and led["status"] == "fail"
    assert led["found"] == f"{home / 'ledger'}: cannot write (Permission denied)" and "writable" in led["fix"]


def test_missing_keys_fail_and_say_which_hosts_key_command_fixes_them(ready, tmp_path):
    home, env = ready
    got = checks(doctor(home, {**env, "XDG_CONFIG_HOME": str(tmp_path / "elsewhere")}, "--json"))
    assert got["host key"]["status"] == "fail" and "swarmgym hosts key new NAME" in got["host key"]["fix"]
    assert got["keyring"]["status"] == "fail" and "swarmgym hosts key add NAME FILE" in got["keyring"]["fix"]
    key = Path(env["XDG_CONFIG_HOME"]) / "swarmgym" / "host.key"
    key.chmod(0o644)
    loose = checks(doctor(home, env, "--json"))["host key"]
    assert loose["status"] == "fail" and "mode 0644, expected 0600" in loose["found"]


def test_more_workspace_budget_than_free_disk_fails_disk(ready):
    home, env = ready
    got = checks(doctor(home, {**env, "SWARMGYM_SANDBOX_WORKSPACE_MB": str(1 << 40)}, "--json"))["disk"]
    assert got["status"] == "fail" and "sandbox.workspace_mb" in got["found"]
    assert "SWARMGYM_SANDBOX_WORKSPACE_MB" in got["fix"]


class _Models(BaseHTTPRequestHandler):
    served = ["qwen-coder-7b"]

    def do_GET(self):  # noqa: N802 - http.server's name
        body = json.dumps({"object": "list", "data": [{"id": m, "object": "model"} for m in self.served]}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def goose_home(home, env, endpoint, tmp_path):
    """--swarm goose: a goose build on PATH and goose's config.yaml with one device on ``endpoint``."""
    goose_wrapper(tmp_path / "bin")
    cfg = Path(env["XDG_CONFIG_HOME"]) / "goose" / "config.yaml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(yaml.safe_dump({"swarm": {"endpoint": endpoint, "planner_model": "qwen-coder-7b", "devices": [
        {"id": "studio", "model_id": "qwen-coder-7b", "weight": 2, "enabled": True}]}}))
    return {**env, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{env['PATH']}"}


def test_goose_pool_endpoint_answering_passes_and_a_dead_one_fails(ready, tmp_path):
    home, env = ready
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        genv = goose_home(home, env, f"http://127.0.0.1:{server.server_port}", tmp_path)
        got = checks(doctor(home, genv, "--json", "--swarm", "goose"))
        assert got["swarm"]["status"] == "pass" and "goose:" in got["swarm"]["found"]
        assert got["pool"]["status"] == "pass" and "answers (1 models); 1 enabled device(s)" in got["pool"]["found"]
    finally:
        server.shutdown()
        server.server_close()
    dead = goose_home(home, env, f"http://127.0.0.1:{free_port()}", tmp_path)
    r = doctor(home, dead, "--json", "--swarm", "goose")
    pool = checks(r)["pool"]
    assert r.returncode == 1 and pool["status"] == "fail" and "does not answer" in pool["found"]
    assert "lms server start" in pool["fix"] and pool["needed_for"] == "the goose swarm"


def test_no_goose_binary_fails_swarm_and_suggests_the_simulator(ready):
    home, env = ready
    r = doctor(home, {**env, "SWARMGYM_SWARM_BINARY": "/nonexistent/goose"}, "--json", "--swarm", "goose")
    got = checks(r)
    assert r.returncode == 1 and got["swarm"]["status"] == "fail" and "not found" in got["swarm"]["found"]
    assert "--swarm sim" in got["swarm"]["fix"]
    assert got["pool"]["status"] == "fail" and "no goose config" in got["pool"]["found"]
