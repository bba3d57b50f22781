"""Boxes built from an allowlist: a swarm (goose or command) and every check see the system's runtime,
the Python, what they were told about — and nothing of the checkout, its ``.git``, the test fixtures'
alternative apps, the suites (copied or packaged), the ledger, ``deploy/``, ``$HOME`` or another workspace.

A snooping swarm and app (:mod:`tests.security.hostile.snoop`) read every such path and search the
whole visible disk for the names a benchmark's answers live under, through ``swarmgym bench`` and
``swarmgym verify``; each test fails if anything was read or found.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from swarmgym.isolation.policy import install_dirs
from swarmgym.suitekit.suite import load_suite, materialize, packaged_suites_dir
from tests.support.hostile import HOSTILE, require_bwrap, trim_checks
from tests.support.wheel import site_packages, wheel_venv

REPO = Path(__file__).resolve().parents[2]


def git_dir() -> Path:
    res = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--path-format=absolute", "--git-common-dir"],
                         capture_output=True, text=True, check=False)
    return Path(res.stdout.strip()) if res.returncode == 0 and res.stdout.strip() else REPO / ".git"


@dataclass
class World:
    root: Path
    home: Path
    env: dict[str, str]
    spec: str
    targets: Path
    app: Path

    def swarmgym(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "swarmgym", *args], env=self.env, cwd=self.root,
                              capture_output=True, text=True, timeout=timeout, check=False)


def secret_paths(home: Path, fake_home: Path, suites: Path) -> dict[str, str]:
    paths = {"checkout": REPO / "pyproject.toml", "checkout_git": REPO / ".git", "git_objects": git_dir() / "HEAD",
             "alt_apps": REPO / "tests" / "fixtures" / "alt_apps" / "invtrack", "tests": REPO / "tests" / "conftest.py",
             "deploy": REPO / "deploy" / "redis.conf", "packaged_suites": packaged_suites_dir() / "bench-v2" / "suite.yaml",
             "suites_copy": suites / "bench-v1" / "suite.yaml", "package": install_dirs()[0] / "__init__.py",
             "plans": home / "runs" / "campaigns", "ledger": home / "ledger", "dotenv": home / ".env",
             "home_key": fake_home / ".ssh" / "id_rsa", "other_workspace": home / "apps" / "other" / "ws" / "secret.txt"}
    return {k: str(v) for k, v in paths.items()}


def make_world(root: Path) -> World:
    home, fake_home, suites, prepared = root / "home", root / "fakehome", root / "suites", root / "hostile"
    for d in (home / "apps" / "other" / "ws", fake_home / ".ssh", prepared):
        d.mkdir(parents=True)
    (home / "apps" / "other" / "ws" / "secret.txt").write_text("another job's workspace\n")
    (fake_home / ".ssh" / "id_rsa").write_text("-----BEGIN KEY-----\nprivate\n")
    (home / ".env").write_text("SWARMGYM_TEST_API_KEY=dotenv-secret\n")
    shutil.copytree(Path(load_suite("bench-v1").root).parent, suites,
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    trim_checks(suites / "bench-v1" / "suite.yaml")
    suite = load_suite("bench-v1", suites)
    spec = suite.specs[0]
    app = prepared / "app"
    materialize(suite, spec, app)
    pkg = app / spec.app_slug
    targets = prepared / "_targets.json"
    targets.write_text(json.dumps({"paths": secret_paths(home, fake_home, suites)}))
    shutil.copy(HOSTILE / "snoop.py", prepared / "snoop.py")
    shutil.copy(HOSTILE / "snoop.py", pkg / "_snoop.py")
    shutil.copy(targets, pkg / "_targets.json")
    init = pkg / "__init__.py"
    init.write_text(f"from {spec.app_slug} import _snoop as _s\n_s.main('check')\n" + init.read_text())
    cfg = {"suites_dir": str(suites), "suite": "bench-v1",
           "swarm": {"adapter": "command", "timeout": 180,
                     "command": [sys.executable, str(prepared / "snoop.py"), "swarm", str(targets), str(app)]},
           "sandbox": {"backend": "bwrap"}}
    import yaml

    (home / "config.yaml").write_text(yaml.safe_dump(cfg))
    env = {**os.environ, "HOME": str(fake_home), "SWARMGYM_HOME": str(home), "SWARMGYM_SIM_TIME_SCALE": "0"}
    for k in ("SWARMGYM_BROKER_URL", "SWARMGYM_RESULT_BACKEND", "PYTHONPATH"):
        env.pop(k, None)
    return World(root, home, env, spec.id, targets, app)


def assert_saw_nothing(report: dict) -> None:
    leaked = {k: v for k, v in report["read"].items() if not v.startswith("blocked")}
    assert leaked == {}, f"{report['mode']} read {leaked}"
    assert report["found"] == [], f"{report['mode']} found {report['found'][:10]}"


@pytest.fixture(scope="module")
def bench_world(tmp_path_factory) -> World:
    require_bwrap()
    world = make_world(tmp_path_factory.mktemp("snoop-bench"))
    res = world.swarmgym("bench", "--tier", "smoke", "--variant", "mlx", "--swarm", "command")
    assert res.returncode == 0, res.stdout + res.stderr
    return world


def _report(home: Path, mode: str) -> dict:
    found = list((home / "apps").rglob(f"snoop-{mode}.json"))
    assert found, f"the snoop never ran in {mode} mode"
    return json.loads(found[0].read_text())


@pytest.mark.slow
def test_a_command_swarm_reads_and_finds_nothing_outside_its_workspace(bench_world):
    assert_saw_nothing(_report(bench_world.home, "swarm"))


@pytest.mark.slow
def test_a_check_run_by_bench_reads_and_finds_nothing_outside_the_workspace(bench_world):
    report = _report(bench_world.home, "check")
    assert_saw_nothing(report)
    rec = [json.loads(x) for x in (bench_world.home / "ledger" / "sessions.jsonl").read_text().splitlines()]
    assert [r["functional"] for r in rec if r.get("kind") == "session"] == [True]  # the real app still passes


@pytest.mark.slow
def test_a_check_run_by_verify_reads_and_finds_nothing_outside_the_workspace(tmp_path):
    require_bwrap()
    world = make_world(tmp_path)
    ws = tmp_path / "ws"
    shutil.copytree(world.app, ws)
    res = world.swarmgym("verify", "--spec", world.spec, "--json", str(ws))
    assert res.returncode == 0, res.stdout + res.stderr
    assert_saw_nothing(json.loads((ws / "snoop-check.json").read_text()))


def beside_the_way(top: Path, python: list[Path]) -> list[Path]:
    """``top`` itself, or — where a Python dir lies inside it — every entry of each folder on the way to
    that Python except the next step (the Python's own folders are bound whole)."""
    if not top.is_dir() or not any(d.is_relative_to(top) for d in python):
        return [top]
    if any(d == top for d in python):
        return []
    out = []
    for n in sorted(os.listdir(top)):
        out += beside_the_way(top / n, python) if any(d.is_relative_to(top / n) for d in python) else [top / n]
    return out


def test_the_check_box_holds_no_checkout_suite_or_package_even_by_name(tmp_path):
    """Fast: one check box, the paths by name (the slow tests above search the whole disk)."""
    require_bwrap()
    from swarmgym.config import load_config
    from swarmgym.isolation import check_policy
    from swarmgym.isolation.sandbox import run_sandboxed

    cfg = load_config(tmp_path, environ={})
    ws = tmp_path / "ws"
    ws.mkdir()
    # the Python that runs checks is readable at its own path, wherever it lives: under $HOME (pyenv), in a
    # clone under /var/tmp, in /opt/venv; the box shows the way to it, and nothing beside that way
    python = [Path(d).resolve() for d in (sys.prefix, sys.base_prefix)]
    beside = [p for top in (Path.home(), Path("/var"), Path("/opt")) for p in beside_the_way(top, python)]
    names = [str(REPO / "pyproject.toml"), str(REPO / ".git"), str(REPO / "tests"), str(git_dir()),
             str(packaged_suites_dir()), str(install_dirs()[0]), *map(str, beside), "/etc/shadow"]
    cmd = "for p in " + " ".join(f"'{n}'" for n in names) + "; do test -e \"$p\" && echo \"SEEN $p\"; done; " \
          "python3 -c 'import sys; print(\"python\", sys.version_info[0])'"
    res = run_sandboxed(cmd, ws, timeout=30, policy=check_policy(cfg, ws), backend="bwrap")
    assert "SEEN" not in res.stdout_tail, res.stdout_tail
    assert "python 3" in res.stdout_tail  # the Python that runs checks is there


@pytest.mark.slow
def test_an_installed_swarmgym_inside_the_venv_keeps_its_suites_out_of_every_check(tmp_path):
    """A non-editable install carries ``swarmgym/suites`` (every reference app) in the venv the box
    binds: the box covers the installed package, so a check of an app cannot read it."""
    require_bwrap()
    (tmp_path / "wheel").mkdir()
    venv = wheel_venv(tmp_path / "wheel")
    installed = site_packages(venv) / "swarmgym"
    assert (installed / "suites" / "bench-v2" / "suite.yaml").is_file()
    world = make_world(tmp_path / "w")
    ws = tmp_path / "ws"
    shutil.copytree(world.app, ws)
    paths = {"installed_suites": str(installed / "suites" / "bench-v2" / "suite.yaml"),
             "installed_package": str(installed / "__init__.py"), "installed_dir": str(installed / "suites")}
    for target in ws.rglob("_targets.json"):
        target.write_text(json.dumps({"paths": paths}))
    (world.home / "config.yaml").unlink()  # the installed copy's own packaged suites
    env = {k: v for k, v in world.env.items() if k != "SWARMGYM_HOME"}
    res = subprocess.run([str(venv / "bin" / "python"), "-c",
                          "import swarmgym, sys; print(swarmgym.__file__); from swarmgym.cli import main; "
                          "sys.argv = ['swarmgym', 'verify', '--suite', 'bench-v1', '--spec', sys.argv[1], "
                          "'--isolation', 'bwrap', sys.argv[2]]; main()", world.spec, str(ws)],
                         env=env, cwd=world.home, capture_output=True, text=True, timeout=600, check=False)
    assert res.stdout.splitlines()[0] == str(installed / "__init__.py"), res.stdout + res.stderr
    assert_saw_nothing(json.loads((ws / "snoop-check.json").read_text()))


def test_another_installed_swarmgym_in_a_bound_python_keeps_its_suites_out_of_every_box(tmp_path, monkeypatch):
    """The venv that runs swarmgym may be editable while its base Python (bound read-only in every box,
    like ``/usr`` and ``/usr/local``) holds an older ``pip install swarmgym`` with ``swarmgym/suites``:
    that copy is covered too, while the rest of that Python stays readable."""
    require_bwrap()
    from swarmgym.config import load_config
    from swarmgym.isolation import check_policy, policy
    from swarmgym.isolation.sandbox import run_sandboxed

    base = tmp_path / "base-python"
    site = base / "lib" / "python3.11" / "site-packages"
    (site / "swarmgym" / "suites" / "bench-v2").mkdir(parents=True)
    (site / "swarmgym" / "suites" / "bench-v2" / "suite.yaml").write_text("reference-app-answers\n")
    (site / "otherpkg").mkdir()
    (site / "otherpkg" / "__init__.py").write_text("other-package-visible\n")
    real = policy.interpreter_dirs
    monkeypatch.setattr(policy, "interpreter_dirs", lambda: [*real(), base])
    cfg = load_config(tmp_path, environ={})
    ws = tmp_path / "ws"
    ws.mkdir()
    for pol in (check_policy(cfg, ws), policy.swarm_policy(cfg, ws, adapter="command")):
        res = run_sandboxed(f"cat {site}/otherpkg/__init__.py; cat {site}/swarmgym/suites/bench-v2/suite.yaml; "
                            f"ls -A {site}/swarmgym", ws, timeout=30, policy=pol, backend="bwrap")
        assert "other-package-visible" in res.stdout_tail, res.stdout_tail + res.stderr_tail
        assert "reference-app-answers" not in res.stdout_tail and "suites" not in res.stdout_tail, res.stdout_tail


def test_the_boxes_etc_never_holds_a_file_others_may_not_read(tmp_path):
    """An allowed ``/etc`` entry may hold a private file (``/etc/ssl/redis/redis.key``, 0600 in a 0700
    folder: the broker's TLS key): the box runs as swarmgym's user, so the copy bound at ``/etc``
    leaves out every file and folder others may not read; the public ones stay."""
    from swarmgym.isolation.etc import _copy

    ssl = tmp_path / "ssl"
    (ssl / "certs").mkdir(parents=True)
    (ssl / "certs" / "ca.pem").write_text("public-cert\n")
    (ssl / "redis").mkdir()
    (ssl / "redis" / "redis.key").write_text("broker-tls-key\n")
    (ssl / "redis").chmod(0o700)
    (ssl / "server.key").write_text("loose-private-key\n")
    (ssl / "server.key").chmod(0o600)
    (ssl / "group.key").write_text("group-private-key\n")
    (ssl / "group.key").chmod(0o640)
    dst = tmp_path / "copy"
    _copy(str(ssl), str(dst), ())
    copied = sorted(str(p.relative_to(dst)) for p in dst.rglob("*"))
    assert copied == ["certs", "certs/ca.pem"], copied
