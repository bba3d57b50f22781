"""Run the bare ``swarmgym-sim`` the way a tool written for goose would run ``goose``: a one-line
wrapper passing every argument and variable through, ``HOME`` (and optionally XDG) pointed at a
temp dir, no ``GOOSE_PATH_ROOT``, no swarmgym settings."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from swarmgym.adapters import sim_command


def goose_wrapper(bin_dir: Path) -> Path:
    """A ``goose`` executable that is ``swarmgym-sim`` under another name."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    goose = bin_dir / "goose"
    goose.write_text("#!/bin/sh\nexec " + " ".join(f"'{a}'" for a in sim_command()) + ' "$@"\n')
    goose.chmod(0o755)
    return goose


def run_goose(home: Path, ws: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """``goose <args>`` in ``ws`` with ``HOME=home``; only the sim's speed (time scale 0) is set."""
    full = {k: v for k, v in os.environ.items()
            if not k.startswith(("GOOSE_", "XDG_", "SWARMGYM_", "LMSTUDIO_"))}
    full.update(HOME=str(home), SWARMGYM_SIM_TIME_SCALE="0", **env)
    ws.mkdir(parents=True, exist_ok=True)
    goose = goose_wrapper(home.parent / "bin")
    return subprocess.run([str(goose), *args], cwd=ws, env=full, capture_output=True, text=True, timeout=120,
                          check=False)
