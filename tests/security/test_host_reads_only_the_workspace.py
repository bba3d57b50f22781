"""The host side reads only the workspace's own regular files (issue #20 item 5; docs/security.md).

A hostile workspace (``hostile/workspace.py``: links to the home's ``.env`` and ``/etc/shadow``, a
link to ``/``, a FIFO, a socket, a 2 GB sparse ``.py``, the event log a link and a FIFO) goes through
``swarmgym verify``, ``swarmgym bench`` (a command swarm that builds it from inside its box) and
``swarmgym once --brain operator`` (the judge's request is a file we can read).  Each run ends, its
peak memory (the harness and everything it waited for, from ``wait4``) stays under 500 MB, and no
byte of the outside files appears in its output, its records, its run folder or a brain request.
"""
from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from tests.explore.explore_helpers import GOOD_RULING
from tests.explore.operator_responder import Responder
from tests.support.hostile import require_bwrap
from tests.support.hostile_workspace import SCRIPT, build, secrets_of, write_dotenv

RSS_BOUND_MB = 500
# the app's pytest follows its rootdir link to / (inside its box) until killed: a hung check costs its timeout,
# and the checks that do end here (exit 1 at import) take a fraction of a second
CHECK_TIMEOUT = 2


def run_measured(argv: list[str], env: dict, timeout: float = 600) -> tuple[int, str, float]:
    """Run ``argv``; (exit code, stdout + stderr, peak RSS in MB of it and its reaped descendants)."""
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:  # a safety net, not a measurement: the run hung
                p.kill()
                p.wait()
                pytest.fail(f"{argv[3:6]} did not end within {timeout}s")
            time.sleep(0.1)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return p.returncode, out.read().decode("utf-8", "replace"), usage.ru_maxrss / 1024


def leaked(texts: list[str], bad: list[str]) -> list[str]:
    return [b[:40] for b in bad if any(b in t for t in texts)]


def home_texts(home: Path) -> list[str]:
    """Every record, run folder file, report and brain request the run left (links and the workspace
    itself are the attack, not its result)."""
    out = []
    for sub in ("runs", "ledger"):
        for p in (home / sub).rglob("*"):
            if p.is_file() and not p.is_symlink() and p.stat().st_size < 64 << 20:
                out.append(p.read_bytes().decode("utf-8", "replace"))
    return out


@pytest.fixture
def hostile_home(tmp_path):
    token = secrets.token_hex(6)
    home = tmp_path / "home"
    home.mkdir()
    write_dotenv(home, token)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "ANTHROPIC_"))}
    env.update(SWARMGYM_HOME=str(home), COLUMNS="200")
    return home, env, secrets_of(home, token)


def swarmgym_argv(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "swarmgym", "--home", str(home), *args]


@pytest.mark.slow
def test_verify_of_a_hostile_workspace_ends_bounded_and_shows_nothing_from_outside(hostile_home):
    require_bwrap()
    home, env, bad = hostile_home
    ws = home / "apps" / "hostile"
    build(ws, home)  # two checks time out (CHECK_TIMEOUT): the app's pytest wanders into its link to /
    code, out, rss = run_measured(swarmgym_argv(home, "verify", "--suite", "bench-v1", "--spec", "invtrack", "--json",
                                                "--check-timeout", str(CHECK_TIMEOUT), str(ws)), env)
    assert code == 1, out  # graded (not functional), not crashed
    doc = json.loads(out[out.index("{"):])
    diag = doc["dimensions"]["diagnostics"]
    assert [s["file"] for s in diag["smells"]] == ["pkg/big.py", "pkg/main.py"]  # its own files' TODOs only
    assert rss < RSS_BOUND_MB, f"peak RSS {rss:.0f} MB"
    assert leaked([out], bad) == []
    code2, table, _ = run_measured(swarmgym_argv(home, "verify", "--suite", "bench-v1", "--spec", "invtrack",
                                                   "--check-timeout", str(CHECK_TIMEOUT), str(ws)),
                                   env)
    assert code2 == 1 and leaked([table], bad) == []


def hostile_swarm_config(home: Path, **extra) -> None:
    (home / "config.yaml").write_text(yaml.safe_dump({
        "suite": "bench-v1",
        "swarm": {"adapter": "command", "timeout": 120, "command": ["sh", "-c", SCRIPT, "sh", str(home)]},
        "checks": {"timeout": CHECK_TIMEOUT},
        # room for the 2 GB sparse file: this test is about what the harness reads, not the swarm's caps
        "sandbox": {"backend": "bwrap", "swarm_file_size_mb": 3072, "workspace_mb": 4096}, **extra}))


@pytest.mark.slow
def test_bench_with_a_swarm_that_plants_links_fifos_and_a_sparse_file_records_the_job_and_nothing_outside(
        hostile_home):
    require_bwrap()
    home, env, bad = hostile_home
    hostile_swarm_config(home)
    code, out, rss = run_measured(swarmgym_argv(home, "bench", "--tier", "smoke", "--variant", "mlx",
                                                "--swarm", "command"), env)
    assert code == 0, out
    [rec] = [r for r in map(json.loads, (home / "ledger" / "sessions.jsonl").read_text().splitlines())
             if r["kind"] == "session"]
    assert rec["dimensions"]["checks"] == "fail" and rec["functional"] is False  # graded, on what it built
    [ws] = [p.parent.parent for p in (home / "apps").rglob("pkg/main.py")]  # the attack ran: its workspace is there
    assert os.readlink(ws / "pkg" / "shadow.py") == "/etc/shadow"  # copied out of the box as a link, never followed
    assert not (ws / "pkg" / "sock.py").exists() and not (ws / "pkg" / "fifo.py").exists()  # left in the box
    assert (ws / "pkg" / "big.py").stat().st_size == 2 << 30  # sparse in the box, sparse on the host
    doc = json.loads((home / "runs" / rec["session_id"] / "session.json").read_text())
    diag = doc["turns"][0]["verdict"]["dimensions"]["diagnostics"]["data"]
    assert sorted(s["file"] for s in diag["smells"]) == ["pkg/big.py", "pkg/main.py"]  # its own files' TODOs only
    assert rss < RSS_BOUND_MB, f"peak RSS {rss:.0f} MB"
    assert leaked([out, *home_texts(home)], bad) == []


@pytest.mark.slow
def test_once_with_the_operator_brain_sends_no_outside_byte_in_the_judges_request(hostile_home):
    require_bwrap()
    home, env, bad = hostile_home
    hostile_swarm_config(home, brain={"provider": "operator", "operator_poll_secs": 0.02, "operator_timeout_secs": 120})
    opener = {"app_slug": "hostile", "language": "python", "prompt": "build a tiny app in pkg/",
              "visible_requirements": ["main returns 1"], "hidden_requirements": [],
              "checks": [{"name": "todo-left", "kind": "file_contains", "path": "pkg/*.py", "text": "TODO"},
                         {"name": "leak-read", "kind": "file_contains", "path": "pkg/*.py", "text": "leak-"}]}
    responder = Responder(home / "runs" / "operator", {"opener": [opener], "judge": [GOOD_RULING]})
    responder.start()
    try:
        code, out, rss = run_measured(swarmgym_argv(home, "once", "--brain", "operator", "--swarm", "command",
                                                    "--archetype", "heavy-spec", "--turns", "1"), env)
    finally:
        responder.stop()
    assert responder.errors == []
    assert responder.roles() == ["opener", "judge"], out
    judge_req = next(d for d in responder.seen if d["role"] == "judge")
    assert " BEGIN: pkg/main.py>>>" in judge_req["user"] and "finish the app" in judge_req["user"]  # fenced app data
    for name in ("leak.py", "shadow.py", "fifo.py", "sock.py", "big.py"):
        assert f" BEGIN: pkg/{name}>>>" not in judge_req["user"]
    [rec] = [r for r in map(json.loads, (home / "ledger" / "sessions.jsonl").read_text().splitlines())
             if r["kind"] == "session"]
    doc = json.loads((home / "runs" / rec["session_id"] / "session.json").read_text())
    results = {r["name"]: r for r in doc["turns"][0]["verdict"]["dimensions"]["checks"]["data"]["results"]}
    assert results["todo-left"]["passed"] and not results["leak-read"]["passed"]  # the link was never read
    assert rss < RSS_BOUND_MB, f"peak RSS {rss:.0f} MB"
    req_files = [p.read_text() for p in (home / "runs" / "operator").glob("req-*.json")]
    assert len(req_files) == 2
    assert leaked([out, *req_files, *home_texts(home)], bad) == []
