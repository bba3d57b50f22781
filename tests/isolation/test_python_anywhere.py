"""The boxes work wherever the Python that runs swarmgym lives: a clone with its venv under ``/var/tmp``
(the box shows the way to that Python and nothing else of ``/var``), a venv under ``/tmp`` (the box's
private ``/tmp`` does not cover it: the simulator still runs from it inside the swarm's box).

Each test makes that layout for real — a venv (``python -m venv``) in a clone-like folder under
``/var/tmp`` or ``/tmp``, with a ``swarmgym-sim`` console script as pip writes it (``#!`` the venv's
python) — and runs swarmgym from that venv's interpreter; its third-party packages and this checkout
come through a path entry (as in :mod:`tests.support.wheel`)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from swarmgym import REPO_ROOT
from tests.support.hostile import require_bwrap

SIM_SCRIPT = "#!{python}\nimport sys\nfrom swarmgym.sim.cli import main\nif __name__ == '__main__':\n    sys.exit(main())\n"


def clone_with_venv(under: str) -> Path:
    """``UNDER/…/clone/.venv``: a real venv whose interpreter imports this checkout and its packages."""
    clone = Path(tempfile.mkdtemp(prefix="swarmgym-layout-", dir=under)) / "clone"
    venv = clone / ".venv"
    res = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True,
                         check=False, timeout=120)
    assert res.returncode == 0, res.stderr
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "_swarmgym_test_deps.pth").write_text(f"{REPO_ROOT}\n{sysconfig.get_paths()['purelib']}\n")
    python = venv / "bin" / "python"
    sim = venv / "bin" / "swarmgym-sim"
    sim.write_text(SIM_SCRIPT.format(python=python))
    sim.chmod(0o755)
    return venv


@pytest.fixture
def var_tmp_venv() -> Iterator[Path]:
    venv = clone_with_venv("/var/tmp")
    yield venv
    shutil.rmtree(venv.parents[1], ignore_errors=True)


@pytest.fixture
def tmp_venv() -> Iterator[Path]:
    venv = clone_with_venv("/tmp")
    yield venv
    shutil.rmtree(venv.parents[1], ignore_errors=True)


def in_venv(venv: Path, code: str, *args: str, timeout: float = 300) -> dict:
    """Run ``code`` with the venv's interpreter (as ``.venv/bin/python`` would); its last line is JSON."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "PYTHON", "VIRTUAL_ENV"))}
    res = subprocess.run([str(venv / "bin" / "python"), "-c", code, *args], cwd=REPO_ROOT, env=env,
                         capture_output=True, text=True, timeout=timeout, check=False)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


CHECK_BOX = """
import json, sys
from pathlib import Path
from swarmgym.config import load_config
from swarmgym.isolation import check_policy
from swarmgym.isolation.sandbox import run_sandboxed
ws = Path(sys.argv[1])
cfg = load_config(ws.parent, environ={})
cmd = ("find /var /opt 2>/dev/null; echo ===; "
       "python3 -c 'import sys; print(sys.prefix)'; echo ===; "
       "for p in /var/lib /var/log /var/tmp/*/clone/pyproject.toml /opt/*; do test -e \\"$p\\" && echo \\"$p\\"; done; true")
res = run_sandboxed(cmd, ws, timeout=60, policy=check_policy(cfg, ws), backend="bwrap")
print(json.dumps({"prefix": sys.prefix, "exit": res.exit_code, "out": res.stdout_tail, "err": res.stderr_tail}))
"""


def test_a_clone_under_var_tmp_shows_its_check_box_only_the_way_to_its_python(var_tmp_venv, tmp_path):
    require_bwrap()
    ws = tmp_path / "ws"
    ws.mkdir()
    got = in_venv(var_tmp_venv, CHECK_BOX, str(ws))
    assert got["prefix"] == str(var_tmp_venv) and got["exit"] == 0, got
    listed, prefix, seen = (part.split() for part in got["out"].split("==="))
    assert prefix == [str(var_tmp_venv)]  # the check's python3 is the clone's venv, read from /var/tmp
    way = {str(p) for p in var_tmp_venv.parents if p != Path("/")}
    outside = [p for p in listed if p not in way and not Path(p).is_relative_to(var_tmp_venv)]
    assert outside == [] and seen == [], got  # of /var nothing but the way to the venv; no /opt, no host state


SIM_IN_SWARM_BOX = """
import json, sys, sysconfig
from pathlib import Path
from swarmgym.adapters import get_adapter, sim_command
from swarmgym.config import load_config
from swarmgym.isolation.policy import install_dirs
from swarmgym.suitekit.suite import load_suite
tmp = Path(sys.argv[1])
suite = load_suite("bench-v2")
readable = [str(suite.root.parent), *map(str, install_dirs()), sys.argv[2]]
cfg = load_config(tmp, environ={}, overrides={"swarm.binary": sim_command()[0], "swarm.timeout": 120,
                                             "sandbox.backend": "bwrap", "sandbox.read_only": readable})
env = {"GOOSE_PATH_ROOT": str(tmp / "goose"), "SWARMGYM_SIM_TIME_SCALE": "0", "SWARMGYM_SIM_SEED": "1",
       "SWARMGYM_SIM_FORCE": "reference"}
out = get_adapter("goose", cfg).run(suite.spec("crud").prompt, tmp / "ws", env=env)
print(json.dumps({"binary": sim_command()[0], "exit": out.exit_code, "source": out.report_source,
                  "files": sorted(p.name for p in (tmp / "ws").rglob("*.py"))}))
"""


def test_a_venv_under_tmp_runs_the_simulator_inside_the_swarms_box_with_its_private_tmp(tmp_venv, tmp_path):
    require_bwrap()
    got = in_venv(tmp_venv, SIM_IN_SWARM_BOX, str(tmp_path), sysconfig.get_paths()["purelib"])
    assert got["binary"] == str(tmp_venv / "bin" / "swarmgym-sim") and got["binary"].startswith("/tmp/"), got
    assert got["exit"] == 0 and got["source"] == "stdout", got  # the script under /tmp ran in the box
    assert "__main__.py" in got["files"], got  # and built the app
