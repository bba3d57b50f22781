"""Exploratory mode on the simulator, end to end through ``swarmgym once``: the brain (the operator, answered by a
thread) is told which apps the simulator builds, opens with one, passes, takes a follow-up that passes too; the
judge is shown the app's source and never what the checks left (``t.txt``, ``e.txt``); a rejected reply is one
line on stderr with the reason."""
from __future__ import annotations

import re

import pytest

from swarmgym.ledger import Ledger
from swarmgym.suitekit.suite import load_suite

from .explore_helpers import GOOD_RULING
from .test_explore_cli import swarmgym

# what a brain that read rdcalc's prompt would check; the first two leave files behind in the workspace
CHECKS = [{"name": "pow_right", "kind": "command_succeeds",
           "run": "python3 -m rdcalc eval '2^3^2' > t.txt && grep -qx 512 t.txt"},
          {"name": "div_zero", "kind": "command_succeeds",
           "run": "! python3 -m rdcalc eval '1/0' 2> e.txt && grep -q '^error:' e.txt"},
          {"name": "help", "kind": "command_succeeds", "run": "python3 -m rdcalc --help | grep -q eval"}]
OPENER = {"app_slug": "rdcalc", "language": "python", "prompt": "Build rdcalc: a recursive-descent calculator with "
          "`python3 -m rdcalc eval EXPR`, ^ right-associative, errors as one `error:` line.",
          "visible_requirements": ["2^3^2 is 512"], "hidden_requirements": ["no eval()"], "checks": CHECKS}
FOLLOW_UP = {"move": "tests", "prompt": "rdcalc: add pytest tests for unary minus and precedence",
             "rationale": "the spec asks for tests", "checks": [
                 {"name": "neg_pow", "kind": "command_succeeds", "run": "python3 -m rdcalc eval '-2^2' | grep -qx -- -4"}]}


@pytest.mark.slow  # two graded simulator turns
def test_a_session_on_the_simulator_opens_with_an_app_it_builds_passes_and_takes_a_follow_up(home, cfg, responder):
    r_ = responder({"opener": ["Let me think about a calculator first.", OPENER],
                    "judge": [GOOD_RULING, GOOD_RULING], "next_move": [FOLLOW_UP]})
    r = swarmgym(home, "once", "--archetype", "heavy-spec", "--swarm", "sim", "--turns", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r_.errors == []

    opener = next(x for x in r_.seen if x["role"] == "opener")
    buildable = [s.app_slug for s in load_suite("bench-v3").specs if not s.starter]
    assert "SIMULATOR" in opener["user"] and all(f'"app_slug": "{slug}"' in opener["user"] for slug in buildable)
    assert "Build `rdcalc`, a recursive-descent calculator" in opener["user"]   # its prompt, to write checks from
    move = next(x for x in r_.seen if x["role"] == "next_move")
    assert "SIMULATOR: every prompt must name the app_slug again" in move["system"]

    rejected = [line for line in r.stderr.splitlines() if "rejected" in line]
    assert rejected == ["operator brain: rejected the opener reply in resp-1.txt: the reply holds no JSON object; "
                        "the next request repeats the question with the reason (2 more tries)"]

    judged = [x["user"] for x in r_.seen if x["role"] == "judge"]
    assert len(judged) == 2
    for text in judged:  # each file fenced as app data under its path (swarmgym.trust.untrusted)
        shown = re.findall(r"^<<<APP DATA [0-9a-f]{12} BEGIN: (.+)>>>$", text, re.M)
        assert "rdcalc/__main__.py" in shown, shown
        assert "t.txt" not in shown and "e.txt" not in shown   # the checks' leftovers, both turns
    [rec] = Ledger(cfg.ledger_dir).records(mode="exploratory")
    assert rec.app_slug == "rdcalc" and rec.turns == 2 and rec.overall == "pass" and rec.functional
    ws = cfg.apps_dir / "rdcalc"
    assert list(ws.glob("*/t.txt")) and list(ws.glob("*/e.txt"))              # they were there to be left out
    assert "pass" in r.stdout and "rdcalc" in r.stdout


def test_a_brain_that_never_replies_validly_is_said_on_stderr_each_time(home, cfg, responder):
    r_ = responder({"opener": ["no JSON here", '{"app_slug": "x"} {"app_slug": "y"}', '{"app_slug": "Bad Slug"}']})
    r = swarmgym(home, "once", "--swarm", "sim", "--no-judge", "--turns", "1")
    assert r.returncode == 1
    assert "It can only\nbuild the apps listed below" in r_.seen[0]["user"] and '"app_slug": "rdcalc"' in r_.seen[0]["user"]
    lines = [line for line in r.stderr.splitlines() if line.startswith("operator brain: rejected")]
    assert len(lines) == 3
    assert "resp-1.txt: the reply holds no JSON object; the next request repeats" in lines[0]
    assert "resp-2.txt: the reply holds 2 JSON objects; exactly one is allowed" in lines[1]
    assert "resp-3.txt: " in lines[2] and "app_slug" in lines[2] and lines[2].endswith(
        "no tries left: the session records the error")
    [rec] = Ledger(cfg.ledger_dir).records(mode="exploratory")
    assert rec.overall == "error" and rec.error.type == "BrainError"
