"""``swarmgym once / loop / explore`` as a user runs them: real subprocesses, the operator brain answered by a thread."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from swarmgym.ledger import Ledger

from .explore_helpers import opener, sim_pool


def swarmgym(home, *args, timeout=240):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARMGYM_", "ANTHROPIC_"))}
    env["COLUMNS"] = "200"
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), *args], env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_once_continue_existing_with_no_green_app_exits_2_with_one_clear_line(home):
    r = swarmgym(home, "once", "--archetype", "continue-existing")
    assert r.returncode == 2
    assert r.stderr.strip().startswith("swarmgym: continue-existing: the ledger") and "Traceback" not in r.stderr


@pytest.mark.slow  # several graded swarm runs
def test_explore_flags_a_starved_node_inline_and_tweaks_it(home, cfg, rdcalc, responder):
    sim_pool(cfg, "weight", "mini-aux", "0")
    responder({"opener": [opener(rdcalc, "right_assoc_pow")]})
    r = swarmgym(home, "explore", "--n", "1", "--archetype", "heavy-spec", "--turns", "1", "--no-judge", "--tweak")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "mini-aux is starved" in out
    assert "tweak" in out and "pool.mini-aux.weight" in out
    assert "1 session(s)" in out
    [rec] = Ledger(cfg.ledger_dir).records(mode="exploratory")
    assert rec.archetype == "heavy-spec" and rec.turns == 2 and "mini-aux" in rec.idle_nodes


@pytest.mark.slow  # several graded swarm runs
def test_loop_cycles_archetypes_with_bumped_seeds(home, cfg, rdcalc, responder):
    r_ = responder({"opener": [opener(rdcalc, "right_assoc_pow"),
                               {**opener(rdcalc, "help", prompt="calc, rdcalc"), "expected_tool": "context7__get-library-docs"},
                               opener(rdcalc, "precedence", prompt="rdcalc: also print a newline")]})
    r = swarmgym(home, "loop", "--n", "3", "--turns", "1", "--no-judge")
    assert r.returncode == 0, r.stderr
    recs = Ledger(cfg.ledger_dir).records(mode="exploratory")
    assert [x.archetype for x in recs] == ["heavy-spec", "minimal-spec", "continue-existing"]
    assert [x.data["seed"] for x in recs] == [1000, 1001, 1002]
    assert len({x.campaign_id for x in recs}) == 1
    assert "Session seed: 1002" in r_.seen[2]["user"] and "regression_checks" in r_.seen[2]["user"]


def test_once_with_claude_and_no_api_key_records_an_error_session_and_exits_1(home, cfg):
    r = swarmgym(home, "once", "--brain", "claude", "--no-judge", "--turns", "1")
    assert r.returncode == 1
    assert "ANTHROPIC_API_KEY is not set" in r.stdout and "Traceback" not in r.stdout + r.stderr
    [rec] = Ledger(cfg.ledger_dir).records(mode="exploratory")
    assert rec.overall == "error" and rec.error.type == "BrainError"
