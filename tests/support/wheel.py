"""A wheel built from this tree, installed alone (``--no-deps``) in a fresh venv whose third-party
dependencies come from the test's own environment through a path entry: no network, seconds."""
from __future__ import annotations

import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

from swarmgym import REPO_ROOT

_ANYWHERE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache", ".ruff_cache", "*.egg-info")
_TOP = {".git", ".venv", "build", "dist", "ledger", "runs", "apps"}  # a checkout's own state, not its source


def _skip(folder: str, names: list[str]) -> set[str]:
    top = {n for n in names if n in _TOP} if Path(folder) == REPO_ROOT else set()
    return top | set(_ANYWHERE(folder, names))


def run(argv: list[str], **kw) -> subprocess.CompletedProcess:
    res = subprocess.run(argv, capture_output=True, text=True, timeout=300, **kw)
    assert res.returncode == 0, f"{argv[:4]} exited {res.returncode}:\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
    return res


def wheel_venv(tmp: Path) -> Path:
    """A fresh venv under ``tmp`` with this tree's wheel installed (not editable)."""
    src = tmp / "src"  # a clean copy: a stale build/ in the repo must not leak into the wheel
    shutil.copytree(REPO_ROOT, src, ignore=_skip)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"), str(src)])
    (wheel,) = (tmp / "dist").glob("swarmgym-*.whl")
    venv = tmp / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    py = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-compile", "-q", str(wheel)])
    purelib = Path(run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    deps = [sysconfig.get_paths()["purelib"], *site.getsitepackages()]
    (purelib / "_swarmgym_test_deps.pth").write_text("\n".join(dict.fromkeys(deps)) + "\n")
    return venv


def site_packages(venv: Path) -> Path:
    (sp,) = (venv / "lib").glob("python3*/site-packages")
    return sp
