"""Two jobs side by side cannot meet; no swarm reaches the broker or the LAN; only its model endpoint answers.

A hostile swarm (``hostile/neighbour.py``) runs in both jobs of a light campaign of ``tiny-v1`` (two specs
of one file check each: the claims are about the swarm's box, not about grading), two at once: it binds a rendezvous on an abstract Unix socket, a loopback TCP port and a loopback UDP
port — the second job to come finds it taken and connects — then knocks on the broker's port (the
test's password-protected Redis) and on a LAN address of the host, and calls its model endpoint.
Through ``bench --swarm command``, ``bench --swarm goose`` (the same script as a stand-in goose, which
also loots its box for the operator's goose secrets) and a real coordinator with two hosts.  The same
campaign with ``--isolation none`` is the control: there they meet, and reach both.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from swarmgym.collect.goose_paths import config_hash, goose_dir
from swarmgym.isolation.policy import interpreter_dirs
from swarmgym.testing.localredis import free_port
from swarmgym.testing.modelserver import ModelServer
from tests.support.hostile import require_bwrap
from tests.support.hostnet import HostServices, lan_address
from tests.support.queue import tiny_suite

HOSTILE = Path(__file__).resolve().parent / "hostile"
CHANNELS = ("abstract", "tcp", "udp")


@pytest.fixture
def world(tmp_path, redis_server):
    """A home, the model server, a LAN service and the neighbour's targets (each neighbour holds its rendezvous
    until the other has bound its own, which it learns at the model server's barrier: two jobs started together
    overlap, which every test asserts; ``wait`` s only bounds a neighbour whose peer never comes)."""
    require_bwrap()
    lan = HostServices()
    server = ModelServer()
    home = tmp_path / "home"
    home.mkdir()
    ip = lan_address()
    targets = {"token": os.urandom(6).hex(), "tcp_port": free_port(), "udp_port": free_port(), "wait": 60,
               "broker_port": redis_server.port, "lan": [ip, lan.tcp_port] if ip else None, "model": server.url,
               "skip": sorted({str(p) for p in interpreter_dirs()}), "loot": False}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "GOOSE_", "XDG_"))}
    env.update(SWARMGYM_HOME=str(home), SWARMGYM_SIM_TIME_SCALE="0")
    yield home, env, targets, server
    server.close()
    lan.close()


def write_targets(folder: Path, targets: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "_targets.json"
    path.write_text(json.dumps(targets))
    return path


JOBS = 2  # a light campaign of tiny-v1: one job per spec


def tiny_suite_config(home: Path) -> dict:
    """Config keys selecting ``tiny-v1`` with two specs, written beside ``home``."""
    suites = home.parent / "suites"
    (suites / "tiny-v1").mkdir(parents=True, exist_ok=True)
    (suites / "tiny-v1" / "suite.yaml").write_text(yaml.safe_dump(tiny_suite(JOBS)))
    return {"suites_dir": str(suites), "suite": "tiny-v1"}


def command_config(home: Path, targets: dict, **sandbox) -> None:
    path = write_targets(home.parent / "neighbour", targets)
    (home / "config.yaml").write_text(yaml.safe_dump({
        **tiny_suite_config(home),
        "swarm": {"adapter": "command", "timeout": 120, "endpoints": [targets["model"]],
                  "command": [sys.executable, str(HOSTILE / "neighbour.py"), str(path)]},
        "sandbox": {"backend": "bwrap", **sandbox}}))


def bench(home: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    res = subprocess.run([sys.executable, "-m", "swarmgym", "bench", "--tier", "light", "--variant", "mlx",
                          "--parallel", "2", *args], env=env, cwd=home.parent, capture_output=True, text=True,
                         timeout=900, check=False)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return res


def reports(home: Path) -> list[dict]:
    found = [json.loads(p.read_text()) for p in (home / "apps").rglob("neighbour.json")]
    assert len(found) == JOBS, f"the neighbour ran {len(found)} times, expected once per job"
    return sorted(found, key=lambda r: r["started"])


def assert_side_by_side(found: list[dict]) -> None:
    a, b = found[0], found[1]
    assert b["started"] < a["ended"], "the first two jobs did not run at the same time: the test proves nothing"
    assert a["arrived"] >= 2 and b["arrived"] >= 2, "a job let go of its rendezvous before the other had bound its own"


def assert_alone(found: list[dict], server: ModelServer) -> None:
    assert_side_by_side(found)
    for r in found:
        assert [r[c].split(":")[0] for c in CHANNELS] == ["alone"] * 3, r
        assert r["broker"].startswith("blocked") and r["lan"].startswith("blocked"), r
        assert r["model"].startswith('{"id": "chatcmpl-loop"'), r  # its model endpoint answers, through the forwarder
    assert len([q for q in server.requests if q["path"].endswith("/chat/completions")]) == JOBS


def sessions(home: Path) -> list[dict]:
    """The ledger's session records."""
    lines = (home / "ledger" / "sessions.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == "session"]


def session_docs(home: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in (home / "runs").glob("*/session.json")]


@pytest.mark.slow
def test_two_command_swarms_side_by_side_cannot_meet_nor_reach_the_broker_or_the_lan(world):
    home, env, targets, server = world
    command_config(home, targets)
    bench(home, env, "--swarm", "command")
    assert_alone(reports(home), server)
    docs = session_docs(home)
    assert len(docs) == JOBS
    for doc in docs:
        net = doc["turns"][0]["run"]["network"]
        assert net["endpoints"] == [f"http://127.0.0.1:{server.port}"] and net["bytes_received"] > 100
    assert all(r["data"]["network"]["connections"] >= 1 for r in sessions(home))


@pytest.mark.slow
def test_without_a_box_the_same_two_swarms_meet_and_reach_everything(world):
    """The control: what the box stops is really there to be reached."""
    home, env, targets, server = world
    command_config(home, targets)
    bench(home, env, "--swarm", "command", "--isolation", "none")
    found = reports(home)
    assert_side_by_side(found)
    for c in CHANNELS:
        assert any(r[c].startswith("met") for r in found), (c, found)
    assert all(r["broker"].startswith("reached") for r in found)
    if targets["lan"]:
        assert all(r["lan"].startswith("reached: host service") for r in found)


GOOSE_SECRETS = {"secrets_yaml": "sk-secrets-yaml-{t}", "inline": "sk-inline-{t}", "ext_token": "ghp_ext_{t}",
                 "env_file": "env-file-{t}", "keyring": "keyring-{t}", "host_env": "sk-host-env-{t}"}


def operator_goose(tmp_path: Path, server: ModelServer, token: str) -> tuple[dict, dict]:
    """The operator's goose config (XDG folders), with a secret in every place goose keeps one."""
    s = {k: v.format(t=token) for k, v in GOOSE_SECRETS.items()}
    operator_env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg" / "config"), "XDG_DATA_HOME": str(tmp_path / "xdg" / "data"),
                    "XDG_STATE_HOME": str(tmp_path / "xdg" / "state"), "HOME": str(tmp_path / "fakehome")}
    cfg = goose_dir("config", operator_env)
    cfg.mkdir(parents=True)
    (cfg / "config.yaml").write_text(yaml.safe_dump({
        "GOOSE_PROVIDER": "lmstudio", "GOOSE_MODEL": "qwen3-coder", "OPENAI_API_KEY": s["inline"],
        "extensions": {"github": {"enabled": True, "envs": {"GITHUB_TOKEN": s["ext_token"]}}},
        "swarm": {"endpoint": f"http://127.0.0.1:{server.port}", "planner_model": "qwen3",
                  "devices": [{"id": "studio", "model_id": "qwen3-coder", "weight": 2, "enabled": True}]}}))
    (cfg / "secrets.yaml").write_text(f"LMSTUDIO_API_KEY: {s['secrets_yaml']}\n")
    (cfg / ".env").write_text(f"ANTHROPIC_API_KEY={s['env_file']}\n")
    (cfg / "keyring.json").write_text(json.dumps({"goose": s["keyring"]}))
    return operator_env, s


@pytest.mark.slow
def test_two_stand_in_gooses_cannot_meet_and_find_no_secret_of_the_operators_goose_config(world, tmp_path):
    home, env, targets, server = world
    operator_env, secret = operator_goose(tmp_path, server, targets["token"])
    goose = tmp_path / "goose-bin" / "goose"
    goose.parent.mkdir()
    goose.write_text(f"#!{sys.executable}\nTARGETS = {({**targets, 'loot': True})!r}\n"
                     + (HOSTILE / "neighbour.py").read_text())
    goose.chmod(0o755)
    (home / "config.yaml").write_text(yaml.safe_dump({
        **tiny_suite_config(home), "swarm": {"adapter": "goose", "binary": str(goose), "timeout": 120},
        "sandbox": {"backend": "bwrap"}}))
    env = {**env, **operator_env, "LMSTUDIO_API_KEY": secret["host_env"]}  # goose's key, as an operator sets it
    bench(home, env, "--swarm", "goose")
    found = reports(home)
    assert_alone(found, server)
    assert all(r["as"] == "goose" for r in found)
    loot = "\n".join(p.read_text() for p in (home / "apps").rglob("loot.txt"))
    assert len(loot) > 1000 and "GOOSE_PROVIDER" in loot  # it read its config copy …
    assert [k for k, v in secret.items() if v in loot] == []  # … and found no secret in its box
    chats = [q for q in server.requests if q["path"].endswith("/chat/completions")]
    assert {q["headers"].get("authorization") for q in chats} == {f"Bearer {secret['host_env']}"}  # added on the host
    everything = "\n".join(p.read_text(errors="replace") for sub in ("runs", "ledger")
                           for p in (home / sub).rglob("*") if p.is_file() and p.stat().st_size < 64 << 20)
    assert [k for k, v in secret.items() if v in everything] == []
    assert {r["provenance"]["goose_config_hash"] for r in sessions(home)} == {config_hash(operator_env)}


@pytest.mark.slow
def test_two_fleet_hosts_side_by_side_cannot_meet_nor_reach_the_broker_or_the_lan(world, own_redis):
    """A real coordinator and two host workers (Celery processes) on one machine run the campaign.

    Their broker is a Redis of this test's own: the session's serves the hostile fleet
    (``tests/security/conftest.py``), whose coordinator and ``mlx@h1`` stay up for the whole session and
    would take this campaign's jobs and results on the same queues."""
    from swarmgym.config import load_config
    from swarmgym.queue.app import make_app
    from swarmgym.testing.localfleet import LocalFleet

    home, env, targets, server = world
    targets = {**targets, "broker_port": own_redis.port}  # the broker the swarms must not reach: this fleet's
    command_config(home, targets)
    env = {**env, "SWARMGYM_BROKER_URL": own_redis.url}
    lf = LocalFleet(home, env, die_with_parent=True)
    try:
        names = [lf.coordinator(), lf.worker("mlx", "h1"), lf.worker("mlx", "h2")]
        lf.wait_ready(make_app(load_config(home, environ=env)), names)
        res = subprocess.run([sys.executable, "-m", "swarmgym", "enqueue", "--tier", "light", "--variant", "mlx",
                              "--swarm", "command"], env={**env, "SWARMGYM_QUEUE_KEYRING_FILE": str(lf.keyring)},
                             cwd=home.parent, capture_output=True, text=True, timeout=120, check=False)
        assert res.returncode == 0, res.stdout + res.stderr
        campaign = res.stdout.split()[0]
        deadline = time.monotonic() + 600
        ledger = home / "ledger" / "sessions.jsonl"
        while not (ledger.is_file() and f'"campaign:{campaign}"' in ledger.read_text()):
            assert time.monotonic() < deadline, "\n".join(p.read_text()[-2000:] for p in (home / "logs").glob("*.log"))
            time.sleep(0.5)
    finally:
        lf.stop_all()
    found = reports(home)
    assert_alone(found, server)
    assert {r["host"] for r in sessions(home)} == {"h1", "h2"}


def test_the_model_servers_barrier_holds_each_job_until_the_other_has_come():
    """The neighbours' meeting point (fast, no box): the first request waits for the second; a later one passes."""
    import threading
    import urllib.request

    def arrive(url: str, name: str, out: list) -> None:
        req = urllib.request.Request(url + "/v1/barrier", method="POST", headers={"content-type": "application/json"},
                                     data=json.dumps({"name": name, "parties": 2, "timeout": 30}).encode())
        out.append(json.loads(urllib.request.urlopen(req, timeout=60).read())["arrived"])

    with ModelServer() as server:
        first: list = []
        waiting = threading.Thread(target=arrive, args=(server.url, "n", first))
        waiting.start()
        while server.arrived.get("n") != 1:
            time.sleep(0.01)
        assert waiting.is_alive() and first == []  # held: nobody else has come
        second: list = []
        arrive(server.url, "n", second)
        waiting.join(30)
        assert first == [2] and second == [2]
        third: list = []
        arrive(server.url, "n", third)
        assert third == [3]  # past the barrier: answered at once
        lone: list = []
        threading.Thread(target=arrive, args=(server.url, "other", lone), daemon=True).start()
        while server.arrived.get("other") != 1:
            time.sleep(0.01)
        assert lone == []  # another name is another barrier
