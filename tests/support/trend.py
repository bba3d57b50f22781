"""Homes for the trend tests: real ``swarmgym`` processes, real (tiny) jobs.

:func:`write_home` makes a home whose suite (``tiny-v1``, :data:`tests.support.queue.TINY_SUITE`) has one spec
with one check (``out.txt`` exists) and whose swarm is the ``command`` adapter: a job is a real boxed subprocess
plus a real golden check, in well under a second.  Swapping the command is a new build of the swarm:
:data:`WORKS` builds a working app, :data:`BROKEN` builds nothing.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.queue import TINY_SUITE

WORKS = ["sh", "-c", "echo ok > out.txt", "{prompt}"]
BROKEN = ["sh", "-c", "true", "{prompt}"]

ENV = {k: v for k, v in os.environ.items() if not k.startswith(("GOOSE_SWARM_", "SWARMGYM_"))}
ENV["COLUMNS"] = "200"


def write_home(home: Path, command: list[str], **extra) -> Path:
    """(Re)write ``home``'s config: the tiny suite, the command adapter running ``command``."""
    suites = home / "suites"
    (suites / "tiny-v1").mkdir(parents=True, exist_ok=True)
    (suites / "tiny-v1" / "suite.yaml").write_text(yaml.safe_dump(TINY_SUITE))
    cfg = {"suites_dir": str(suites), "suite": "tiny-v1",
           "swarm": {"adapter": "command", "command": command, "timeout": 60}, **extra}
    (home / "config.yaml").write_text(yaml.safe_dump(cfg))
    return home


def swarmgym(home: Path, *args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "swarmgym", "--root", str(home), *args], capture_output=True,
                          text=True, env={**ENV, **(env or {})}, timeout=timeout)
