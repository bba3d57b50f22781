"""The hostile campaign's arena for the security tests: a copied suite whose app runs the hostile payload
(:mod:`tests.security.hostile.payload`) in every check and as the swarm, the secrets it must not get, and a
password-protected throwaway Redis.  Without a working bubblewrap the tests skip, except under ``CI=true``
where they fail (CI installs bubblewrap).
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest
import redis
import yaml

from swarmgym.isolation import get_backend
from swarmgym.isolation.policy import install_dirs
from swarmgym.suitekit.suite import load_suite, materialize

HOSTILE = Path(__file__).resolve().parents[1] / "security" / "hostile"
MAX_PROCS = 64
FILE_MB = 16


def require_bwrap() -> None:
    why = get_backend("bwrap").available()
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"bubblewrap is required in CI: {why}")
        pytest.skip(f"isolation tests need bubblewrap: {why}")


def require_memory_cgroup() -> None:
    require_bwrap()
    from swarmgym.isolation.cgroup import cgroup_root

    if cgroup_root("memory") is None:
        pytest.skip("no writable memory cgroup here")


@dataclass
class RedisServer:
    port: int
    password: str
    proc: subprocess.Popen

    @property
    def url(self) -> str:
        return f"redis://:{self.password}@127.0.0.1:{self.port}/0"

    def client(self, db: int = 0) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password, db=db, decode_responses=True)


@dataclass
class Arena:
    """One hostile campaign's world: its home, fake $HOME, suites copy and the secrets it must not get."""

    root: Path
    home: Path
    fake_home: Path
    suites: Path
    prepared: Path
    token: str
    secrets: dict[str, str]
    env: dict[str, str]
    suite_before: str = ""
    out: str = ""
    campaign_id: str = ""
    extra: dict = field(default_factory=dict)

    def workspace_files(self) -> list[Path]:
        return [p for p in (self.home / "apps").rglob("*") if p.is_file()]

    def ledger_lines(self) -> list[dict]:
        path = self.home / "ledger" / "sessions.jsonl"
        return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.is_file() else []

    def attack_report(self, mode: str) -> dict:
        found = list((self.home / "apps").rglob(f"attack-{mode}.json"))
        assert found, f"the hostile payload never ran in {mode} mode (no attack-{mode}.json)"
        return json.loads(found[0].read_text())

    def alive(self) -> list[str]:
        out = []
        for p in psutil.process_iter(["cmdline", "status"]):
            try:
                if p.info["status"] != psutil.STATUS_ZOMBIE and any(self.token in a for a in p.info["cmdline"] or []):
                    out.append(" ".join(p.info["cmdline"]))
            except psutil.Error:
                continue
        return out


def tree_digest(root: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


KEEP_CHECKS = ("help", "total_value", "tests_exist")  # one command the mutant passes, one it fails, one file check


def trim_checks(suite_yaml: Path) -> None:
    """The copied suite keeps three checks of its first spec: the payload runs inside every one, and
    fewer python starts keep the hostile campaign fast."""
    data = yaml.safe_load(suite_yaml.read_text())
    spec = data["specs"][0]
    spec["checks"] = [c for c in spec["checks"] if c["name"] in KEEP_CHECKS]
    suite_yaml.write_text(yaml.safe_dump(data, sort_keys=False))


def make_arena(root: Path, redis_server: RedisServer) -> Arena:
    token = secrets.token_hex(6)
    home, fake_home, suites, prepared = root / "home", root / "fakehome", root / "suites", root / "hostile"
    for d in (home, fake_home / ".ssh", prepared):
        d.mkdir(parents=True)
    shutil.copytree(Path(load_suite("bench-v1").root).parent, suites,
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    trim_checks(suites / "bench-v1" / "suite.yaml")
    sec = {"dotenv": f"dotenv-{token}-apikey", "ssh": f"ssh-{token}-privkey", "flower": f"flower-{token}-pw",
           "anthropic": f"sk-ant-{token}-key", "redis": redis_server.password}
    (fake_home / ".ssh" / "id_rsa").write_text(f"-----BEGIN KEY-----\n{sec['ssh']}\n")
    (home / ".env").write_text(f"SWARMGYM_TEST_API_KEY={sec['dotenv']}\nSWARMGYM_BROKER_URL={redis_server.url}\n")
    suite = load_suite("bench-v1", suites)
    spec = suite.specs[0]  # the smoke tier's only job
    mutant = next(m for m in suite.mutants(spec) if m.name == "wrong-agg")  # fails total_value: a true "fail"
    app = prepared / "app"
    materialize(suite, spec, app, mutant)
    pkg = app / spec.app_slug
    targets = {"home": str(home), "fake_home": str(fake_home), "redis_port": redis_server.port, "token": token,
               "suite_dir": str(suites / "bench-v1"), "package_dir": str(install_dirs()[0]),
               "host_tmp": "/tmp", "storm": MAX_PROCS * 4}
    for where in (prepared, pkg):
        shutil.copy(HOSTILE / "payload.py", where / ("payload.py" if where == prepared else "_payload.py"))
        (where / "_targets.json").write_text(json.dumps(targets))
    init = pkg / "__init__.py"
    init.write_text(f"from {spec.app_slug} import _payload as _p\n_p.main('check')\n" + init.read_text())
    cfg = {"suites_dir": str(suites), "suite": "bench-v1",  # the trimmed copy (not the default suite, untrimmed)
           "swarm": {"adapter": "command", "timeout": 120,
                     "command": [sys.executable, str(prepared / "payload.py"), "swarm",
                                 str(prepared / "_targets.json"), str(app)]},
           "checks": {"max_procs": MAX_PROCS, "file_size_mb": FILE_MB, "timeout": 60},
           "sandbox": {"backend": "bwrap", "swarm_file_size_mb": FILE_MB}}
    (home / "config.yaml").write_text(yaml.safe_dump(cfg))
    env = {**os.environ, "HOME": str(fake_home), "SWARMGYM_HOME": str(home), "FLOWER_BASIC_AUTH": f"admin:{sec['flower']}",
           "ANTHROPIC_API_KEY": sec["anthropic"], "SWARMGYM_SIM_TIME_SCALE": "0"}
    for k in ("SWARMGYM_BROKER_URL", "SWARMGYM_RESULT_BACKEND", "PYTHONPATH"):
        env.pop(k, None)
    return Arena(root, home, fake_home, suites, prepared, token, sec, env, suite_before=tree_digest(suites))


def swarmgym(arena: Arena, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "swarmgym", *args], env=arena.env, cwd=arena.root,
                          capture_output=True, text=True, timeout=timeout, check=False)


def settle(arena: Arena, timeout: float = 15) -> None:
    """Give killed processes a moment to be reaped before the tests look for survivors."""
    deadline = time.monotonic() + timeout
    while arena.alive() and time.monotonic() < deadline:
        time.sleep(0.2)


