"""The isolation layer itself: backend choice (auto / none / refusal), the seatbelt profile text,
and what a bwrap box hides from a check."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from swarmgym.isolation import Policy
from swarmgym.isolation.policy import Limits
from swarmgym.isolation.seatbelt import profile
from tests.support.hostile import require_bwrap

NO_BWRAP_PATH = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                if not (Path(p) / "bwrap").exists())


def _no_bwrap_env(home: Path) -> dict[str, str]:
    return {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + NO_BWRAP_PATH,
            "SWARMGYM_HOME": str(home)}


def test_without_a_backend_a_command_swarm_is_refused_in_one_line(tmp_path):
    res = subprocess.run([sys.executable, "-m", "swarmgym", "bench", "--swarm", "command", "--tier", "smoke"],
                         env={**_no_bwrap_env(tmp_path), "SWARMGYM_SWARM_COMMAND": json.dumps([sys.executable])},
                         capture_output=True, text=True, timeout=60, check=False)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "apt-get install bubblewrap" in lines[0] and "--isolation none" in lines[0]
    assert "Traceback" not in res.stderr and not (tmp_path / "runs" / "campaigns").exists()


def test_without_a_backend_the_simulator_falls_back_to_none_with_one_warning(tmp_path):
    code = ("from swarmgym.isolation import resolve\n"
            "print(resolve('auto', 'sim'), resolve('auto', 'sim'))\n")
    res = subprocess.run([sys.executable, "-c", code], env=_no_bwrap_env(tmp_path), capture_output=True,
                         text=True, timeout=60, check=False)
    assert res.stdout.split() == ["none", "none"]
    assert len(res.stderr.strip().splitlines()) == 1 and "warning" in res.stderr


def test_asking_for_bwrap_where_it_cannot_run_is_a_usage_error(tmp_path):
    res = subprocess.run([sys.executable, "-m", "swarmgym", "verify", "--spec", "crud", "--isolation", "bwrap",
                          str(tmp_path)], env=_no_bwrap_env(tmp_path), capture_output=True, text=True, timeout=60, check=False)
    assert res.returncode == 2 and "bwrap not found" in res.stderr and "Traceback" not in res.stderr


@pytest.mark.slow  # a bench job and its grading: more than a few seconds
def test_none_is_used_only_when_asked_and_the_record_says_so(tmp_path):
    import shutil

    from swarmgym.campaigns.bench import new_bench_campaign
    from swarmgym.campaigns.job import run_job
    from swarmgym.config import load_config
    from swarmgym.suitekit.suite import load_suite
    from tests.support.hostile import trim_checks

    suites = tmp_path / "suites"
    shutil.copytree(load_suite("bench-v1").root.parent, suites, ignore=shutil.ignore_patterns("__pycache__"))
    trim_checks(suites / "bench-v1" / "suite.yaml")  # three checks are enough to show the record
    cfg = load_config(tmp_path, environ={}, overrides={"sandbox.backend": "none", "swarm.timeout": 60,
                                                       "suites_dir": str(suites)})
    job = new_bench_campaign(cfg, "smoke", "mlx", swarm="sim").jobs[0]
    job = job.model_copy(update={"env": {"SWARMGYM_SIM_TIME_SCALE": "0", "SWARMGYM_SIM_FORCE": "reference"}})
    res = run_job(job, cfg)
    assert res.provenance.isolation == "none" and res.verdict is not None
    assert '"isolation": "none"' in (tmp_path / "runs" / res.session_id / "session.json").read_text()


PKG = Path("/Users/me/venv/lib/python3.12/site-packages/swarmgym")  # an installed swarmgym (suites inside)


def _policy(network: bool) -> Policy:
    return Policy(workspace=Path("/w/ws"), writable=(Path("/Users/me/.local/share/goose"),),
                  read_only=(Path("/Users/me/venv"),), hidden=(Path("/Users/me"), Path("/srv/sg"), PKG),
                  network=network, limits=Limits())


def test_seatbelt_profile_denies_every_read_but_the_runtime_and_the_named_paths():
    text = profile(_policy(network=False), private_tmp="/private/tmp/box1")
    lines = text.splitlines()
    assert lines[:4] == ["(version 1)", "(allow default)", "(deny file-read* file-write*)", "(allow file-read-metadata)"]
    system = lines[4]
    assert system.startswith("(allow file-read* ") and '(subpath "/usr")' in system and '(subpath "/System")' in system
    assert '"/private/etc/hosts"' in system and "/Users" not in system and "/private/etc/master.passwd" not in system
    assert lines[5] == '(deny file-read* file-write* (subpath "/opt/homebrew/var") (subpath "/usr/local/var"))'  # a Redis dump
    venv = lines.index('(allow file-read* (subpath "/Users/me/venv"))')
    carve = lines.index(f'(deny file-read* file-write* (subpath "{PKG}"))')
    assert carve > venv  # deeper and later: the installed package (and its suites) stays unreadable
    for rw in ("/w/ws", "/Users/me/.local/share/goose", "/private/tmp/box1"):
        assert f'(allow file-read* file-write* (subpath "{rw}"))' in lines
    assert not [x for x in lines if '"/Users/me"' in x or "/srv/sg" in x]  # denied by default, never allowed
    assert lines[-1] == "(deny network*)"


def test_seatbelt_profile_lets_the_swarm_reach_its_model_endpoints_and_nothing_else():
    from dataclasses import replace

    from swarmgym.isolation.endpoints import parse_endpoint, plan_routes

    routes = plan_routes([parse_endpoint("http://localhost:1234"), parse_endpoint("http://studio.local:8080")])
    swarm = replace(_policy(network=False), purpose="swarm", routes=tuple(routes))
    lines = profile(swarm, private_tmp="/private/tmp/box1").splitlines()
    net = lines[lines.index("(deny network*)"):]
    assert net[1] == '(allow network-outbound (remote tcp "localhost:1234") (remote tcp "*:8080"))'
    assert net[2] == '(allow network-outbound (remote unix-socket (path-literal "/private/var/run/mDNSResponder")))'
    assert net[3] == ('(allow network-bind network-outbound network-inbound (local unix-socket (subpath "/private/tmp/box1")) '
                      '(remote unix-socket (subpath "/private/tmp/box1")))')  # its own sockets; none another job sees
    assert net[4] == '(deny mach-lookup (global-name "com.apple.SecurityServer") (global-name "com.apple.securityd"))'
    assert not [x for x in net if "network-inbound" in x and "unix-socket" not in x]  # never a listening TCP/UDP port
    loopback_only = replace(swarm, routes=tuple(plan_routes([parse_endpoint("http://127.0.0.1:1234")])))
    assert "mDNSResponder" not in profile(loopback_only)  # no name to resolve: no resolver
    assert "(deny network*)" not in profile(_policy(network=True))  # the unboxed fallback's policy


def test_where_the_kernel_refuses_a_network_namespace_an_untrusted_swarm_is_refused_unless_isolation_none(tmp_path):
    """In a user namespace whose ``user.max_net_namespaces`` is 0 (the host's own limit is untouched)."""
    require_bwrap()
    if subprocess.run(["unshare", "-Ur", "true"], capture_output=True, check=False).returncode != 0:
        pytest.skip("unshare -Ur is not allowed here")
    env = {**os.environ, "SWARMGYM_HOME": str(tmp_path), "SWARMGYM_SWARM_COMMAND": json.dumps([sys.executable, "-c", "0"]),
           "SWARMGYM_SIM_TIME_SCALE": "0"}

    def bench(*args: str) -> subprocess.CompletedProcess:
        inner = "echo 0 > /proc/sys/user/max_net_namespaces && exec \"$@\""
        return subprocess.run(["unshare", "-Ur", "sh", "-c", inner, "sh", sys.executable, "-m", "swarmgym", "bench",
                               "--tier", "smoke", *args], env=env, capture_output=True, text=True, timeout=300,
                              check=False)

    res = bench("--swarm", "command")
    assert res.returncode == 2, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "refuses the box a network namespace" in lines[0] and "--isolation none" in lines[0]
    assert "max_net_namespaces" in lines[0] and not (tmp_path / "runs" / "campaigns").exists()
    ok = bench("--swarm", "command", "--isolation", "none")
    assert ok.returncode == 0 and "isolation none" in ok.stdout, ok.stdout + ok.stderr


def test_a_bwrap_box_hides_the_root_home_and_other_workspaces_from_a_check(tmp_path, monkeypatch):
    require_bwrap()
    from swarmgym.config import load_config
    from swarmgym.isolation import check_policy
    from swarmgym.isolation.sandbox import run_sandboxed

    fake_home = tmp_path / "me"
    (fake_home / ".ssh").mkdir(parents=True)
    (fake_home / ".ssh" / "id_rsa").write_text("ssh-key-material")
    monkeypatch.setenv("HOME", str(fake_home))
    home = tmp_path / "home"
    (home / "apps" / "a" / "other").mkdir(parents=True)
    (home / "apps" / "a" / "other" / "secret.txt").write_text("other job")
    (home / ".env").write_text("X_TOKEN=zzz\n")
    ws = home / "apps" / "a" / "mine"
    ws.mkdir()
    cfg = load_config(home, environ={})
    cmd = (f"cat {home}/.env ~/.ssh/id_rsa {home}/apps/a/other/secret.txt; echo hi > out.txt; "
           f"echo x > {home}/x; echo x > {fake_home}/x; echo y > /tmp/y; echo done")
    res = run_sandboxed(cmd, ws, timeout=30, policy=check_policy(cfg, ws), backend="bwrap")
    for secret in ("zzz", "ssh-key-material", "other job"):
        assert secret not in res.stdout_tail
    assert res.stdout_tail.strip().endswith("done") and (ws / "out.txt").read_text() == "hi\n"
    assert not (home / "x").exists() and not (fake_home / "x").exists()  # hidden paths are empty scratch tmpfs
