"""Attacking apps shipped through a real ``swarmgym bench --swarm command`` (issue #30).

A command swarm whose argv unpacks a folder (an embedded base64 tarball: the swarm's box cannot read the test's
tmp folders) and the four attacks on bench-v5's crud reference (``invtrack``): the hedge, the haystack, the
``/proc`` peek and the stdlib shadows.
"""
from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Callable

from swarmgym import REPO_ROOT
from swarmgym.models.session import Turn
from swarmgym.models.verdict import CheckResult
from swarmgym.suitekit.suite import load_suite, materialize

UNPACK = ("import base64, io, tarfile\n"
          "tarfile.open(fileobj=io.BytesIO(base64.b64decode({blob!r}))).extractall('.')\n")


def unpacking_swarm(folder: Path) -> list[str]:
    """The argv of a command swarm that "builds" ``folder``: it writes its files into its working folder."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(folder, arcname=".")
    return ["python3", "-c", UNPACK.format(blob=base64.b64encode(buf.getvalue()).decode())]


def bench_smoke(home: Path, command: list[str], timeout: float = 900) -> subprocess.CompletedProcess:
    """``swarmgym bench --tier smoke --swarm command --suite bench-v5 --isolation bwrap`` in ``home``, as a user runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "GOOSE_SWARM_"))}
    env["SWARMGYM_SWARM_COMMAND"] = json.dumps(command)
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "bench", "--tier", "smoke",
                           "--swarm", "command", "--suite", "bench-v5", "--isolation", "bwrap"],
                          capture_output=True, text=True, timeout=timeout, env=env, check=False)


def session_records(home: Path) -> list[dict]:
    """The ledger's session records (a finished campaign adds its own campaign record)."""
    p = home / "ledger" / "sessions.jsonl"
    lines = [json.loads(x) for x in p.read_text().splitlines() if x.strip()] if p.exists() else []
    return [x for x in lines if x["kind"] == "session"]


def recorded_checks(home: Path, record: dict) -> dict[str, CheckResult]:
    """The golden checks' results of a recorded session's first turn (its run folder), by name."""
    turn = Turn.model_validate_json((home / "runs" / record["session_id"] / "turn-1.json").read_text())
    assert turn.verdict is not None, f"session {record['session_id']} was not graded"
    return {r.name: r for r in turn.verdict.check_results()}


V5 = load_suite("bench-v5", REPO_ROOT / "suites")
CRUD = V5.spec("crud")
VALUE_LINE = 'print(f"Total value: {_fmt_price(store.total_value())}")'
HEDGE = ('print(f"Total value: {_fmt_price(int(store.total_value() * 100) / 100)} '
         '{_fmt_price(store.total_value())}")')  # the ``value-truncates`` mutant printing both candidates
HAYSTACK = 'print(" ".join(str(i) for i in range(1001)))'  # every integer a value check could want
EXIT_0 = "import os\nos._exit(0)\n"
SHADOWS = ("ast.py", "json.py", "sqlite3.py", "io.py", "runpy.py", "importlib.py", "pytest.py", "_pytest/__init__.py",
           "conftest.py", "sitecustomize.py")

PEEK = r'''
import gc, glob, json, os, re, sys

GUESS = []


def _rows():
    # the check driver's inputs, if this process can see them (a forked step shares its memory)
    for o in gc.get_objects():
        if isinstance(o, dict) and "rows" in o and "module" in o and isinstance(o["rows"], list):
            return [(r["n"], [s["argv"] for s in r["steps"]]) for r in o["rows"]]
    return [(n, [["report", "value"]]) for n in range(100)]


def _peek():
    # read every process of the box; keep what looks like a wanted value; forge a result into every stdout
    with open("/proc/1/cmdline", "rb") as f:
        if b"bwrap" not in f.read():
            return  # this payload writes into every stdout it can reach: never outside a box
    loot = []
    for path in glob.glob("/proc/[0-9]*"):
        for what in ("cmdline", "environ", "fd/0", "fd/3"):
            try:
                fd = os.open(os.path.join(path, what), os.O_RDONLY | os.O_NONBLOCK)
                try:
                    loot.append(os.read(fd, 1 << 20).decode("utf-8", "replace"))
                finally:
                    os.close(fd)
            except OSError:
                pass
    text = "\n".join(loot)
    argv = " ".join(sys.argv)
    GUESS.extend(sorted({x.strip() for x in re.split(r"[\x00\n]", text) if "Total value" in x})[:20])
    GUESS.extend("Total value: " + n for n in sorted(set(re.findall(r"\d+\.\d\d\b", text)))[:20] if n not in argv)
    steps = lambda argvs: [{"code": 0, "timeout": False, "out_cut": False, "err_cut": False, "err": "", "files": {},
                            "out": "Total value: 25.00\n" if a[-2:] == ["report", "value"] else ""} for a in argvs]
    forged = {"rows": [{"n": n, "steps": steps(argvs)} for n, argvs in _rows()]}
    fake = ("\nSWARMGYM-DIFF " + json.dumps(forged) + "\nx").encode()  # the driver's own line then starts with "x"
    for path in glob.glob("/proc/[0-9]*/fd/[12]"):
        if path.startswith("/proc/%d/" % os.getpid()):
            continue
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, fake)
            finally:
                os.close(fd)
        except OSError:
            pass


_peek()
'''


def reference(ws: Path) -> Path:
    """bench-v5's crud reference, as the spec's golden app."""
    return materialize(V5, CRUD, ws)


def _patch_value_line(ws: Path, new: str, fresh: bool = True) -> Path:
    cli = (reference(ws) if fresh else ws) / CRUD.app_slug / "cli.py"
    src = cli.read_text()
    assert src.count(VALUE_LINE) == 1, "the crud reference changed: its value line is gone"
    cli.write_text(src.replace(VALUE_LINE, new))
    return ws


def hedge(ws: Path) -> Path:
    return _patch_value_line(ws, HEDGE)


def haystack(ws: Path) -> Path:
    return _patch_value_line(ws, HAYSTACK)


def peek(ws: Path) -> Path:
    """Every command first peeks at the box's processes and forges a result into every stdout it reaches;
    ``report value`` prints only what it found there (or a wrong total)."""
    init = reference(ws) / CRUD.app_slug / "__init__.py"
    init.write_text(PEEK + init.read_text())
    return _patch_value_line(ws, 'print("\\n".join(__import__("invtrack").GUESS) or "Total value: 0.00")', fresh=False)


def shadows(ws: Path) -> Path:
    """A third-party import, stdlib shadows that exit 0 at import and the app's own tests replaced by a failing one."""
    cli = reference(ws) / CRUD.app_slug / "cli.py"
    cli.write_text("import requests  # not the standard library\n" + cli.read_text())
    for name in SHADOWS:
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(EXIT_0)
    for t in (ws / "tests").glob("test_*.py"):
        t.unlink()
    (ws / "tests" / "test_cli.py").write_text("def test_wrong():\n    assert False\n")
    return ws


ATTACKS: dict[str, Callable[[Path], Path]] = {"hedge": hedge, "haystack": haystack, "peek": peek, "shadows": shadows}
