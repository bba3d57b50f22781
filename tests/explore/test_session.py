"""Exploratory sessions end to end: the simulator builds, the operator brain (a responder thread) steers."""
from __future__ import annotations

import json

import pytest

from swarmgym.core.errors import UsageError
from swarmgym.explore import run_session
from swarmgym.ledger import Ledger

from .explore_helpers import GOOD_RULING, checks, opener, sim_pool


@pytest.mark.slow  # three graded swarm runs
def test_three_turn_heavy_spec_session_accumulates_checks_and_records_everything(cfg, rdcalc, responder):
    r = responder({
        "opener": [opener(rdcalc, "right_assoc_pow", "precedence",
                          has_tests={"kind": "file_exists", "path": "tests/test_*.py"})],
        "next_move": [
            "Not JSON yet, sorry.",  # invalid: re-asked with the error appended
            {"move": "feature", "prompt": rdcalc.hard_prompt, "rationale": "variables and functions",
             "checks": checks(rdcalc, "hard_variables")},
            {"move": "tests", "prompt": rdcalc.hard_prompt, "rationale": "keep it covered",
             "checks": checks(rdcalc, "tests_pass")},
        ],
        "judge": [GOOD_RULING] * 3,
    })
    doc = run_session(cfg, "heavy-spec", seed=7, turns=3, judge=True)
    assert r.errors == []
    assert [t.kind for t in doc.turns] == ["open", "feature", "tests"]
    assert [t.data["checks"] for t in doc.turns] == [
        ["right_assoc_pow", "precedence", "has_tests"],
        ["right_assoc_pow", "precedence", "has_tests", "hard_variables"],
        ["right_assoc_pow", "precedence", "has_tests", "hard_variables", "tests_pass"]]
    for t in doc.turns:
        assert t.verdict.status("checks") == "pass", t.verdict.dimensions["checks"].summary
        assert t.verdict.status("requirements") == "pass" and t.verdict.status("code_quality") == "pass"
        assert sum(t.per_device.values()) > 0
    assert doc.functional and doc.app_slug == "rdcalc"
    judged = [s for s in r.seen if s["role"] == "judge"]
    assert "def " in judged[0]["user"] and "no eval()" in judged[0]["user"]  # real code + hidden requirement
    reask = [s for s in r.seen if s["role"] == "next_move"][1]
    assert "rejected: the reply holds no JSON object" in reask["user"]
    # artefacts and the ledger
    folder = cfg.runs_dir / doc.session_id
    assert {p.name for p in folder.iterdir()} >= {"session.json", "turn-1.json", "turn-2.json", "turn-3.json", "report.html"}
    saved = json.loads((folder / "session.json").read_text())
    assert [c["name"] for c in saved["data"]["checks"]][-1] == "tests_pass"
    assert saved["data"]["brain_usage"]["calls"] == 7
    rec = Ledger(cfg.ledger_dir).find(doc.session_id)[0]
    assert (rec.mode, rec.archetype, rec.turns, rec.functional) == ("exploratory", "heavy-spec", 3, True)
    assert rec.data["workspace"] == doc.workspace and (cfg.apps_dir / "rdcalc").is_dir()
    # the exploratory record says what ran, like a benchmark one (one record constructor)
    assert rec.provenance.adapter == "sim" and rec.provenance.binary_version and rec.provenance.host == rec.host
    assert saved["provenance"] == rec.provenance.model_dump(mode="json")


@pytest.mark.slow  # two graded swarm runs
def test_continue_existing_extends_a_green_app_and_reruns_its_old_checks(cfg, rdcalc, responder):
    responder({"opener": [opener(rdcalc, "right_assoc_pow", "precedence"),
                          {**opener(rdcalc, prompt="rdcalc: add --var NAME=VALUE and the functions max, min, abs, sqrt.\n\n"
                                    + rdcalc.hard_prompt), "checks": checks(rdcalc, "hard_functions")}]})
    first = run_session(cfg, "heavy-spec", seed=1, turns=1, judge=False)
    assert first.functional
    doc = run_session(cfg, "continue-existing", seed=2, turns=1, judge=False)
    assert doc.workspace == first.workspace and doc.data["substrate"] == first.session_id
    turn = doc.turns[0]
    assert turn.kind == "feature"
    results = {r["name"]: r["passed"] for r in turn.verdict.dimensions["checks"].data["results"]}
    assert results == {"right_assoc_pow": True, "precedence": True, "hard_functions": True}


def test_continue_existing_without_a_green_app_says_so(cfg):
    with pytest.raises(UsageError, match="knows no green app"):
        run_session(cfg, "continue-existing", turns=1, judge=False)


@pytest.mark.slow  # two graded swarm runs
def test_tweak_finds_a_starved_device_raises_its_weight_and_the_rerun_shows_it_busy(cfg, rdcalc, responder):
    sim_pool(cfg, "weight", "gguf-box", "0")
    responder({"opener": [opener(rdcalc, "right_assoc_pow")]})
    doc = run_session(cfg, "heavy-spec", seed=5, turns=1, judge=False, tweak=True)
    first, rerun = doc.turns
    assert first.per_device["gguf-box"] == 0 and "gguf-box" in first.data["monitor"]["starved"]
    assert rerun.kind == "tweak-rerun" and rerun.prompt == first.prompt
    tw = rerun.tweak
    assert tw["applied"] == [{"key": "pool.gguf-box.weight", "value": 2.0, "via": "pool weight gguf-box 2"}]
    assert tw["commands"][0]["exit_code"] == 0 and tw["commands"][0]["argv"][-4:] == ["pool", "weight", "gguf-box", "2"]
    assert tw["before"]["gguf-box"] == 0 and tw["after"]["gguf-box"] > 0
    assert "gguf-box  " in sim_pool(cfg, "show") and "gguf-box" not in rerun.data["monitor"]["starved"]
    rec = Ledger(cfg.ledger_dir).find(doc.session_id)[0]
    assert rec.data["tweaked"] is True


def test_a_brain_that_gives_up_is_an_error_turn_not_a_crash(cfg, responder):
    responder({"opener": ["no idea"] * 3})
    doc = run_session(cfg, "minimal-spec", turns=2, judge=False)
    assert doc.overall == "error" and "no valid Opener" in doc.error.message
    assert Ledger(cfg.ledger_dir).find(doc.session_id)[0].overall == "error"


def test_minimal_spec_expected_tool_adds_mcp_and_a_tool_called_check(cfg, rdcalc, responder):
    r = responder({"opener": [{"app_slug": "rdcalc", "prompt": "calculator pls, call it rdcalc",
                               "hidden_requirements": ["right-associative ^", "clean errors"],
                               "checks": checks(rdcalc, "right_assoc_pow"),
                               "expected_tool": "context7__get-library-docs"}]})
    doc = run_session(cfg, "minimal-spec", seed=4, turns=1, judge=False)
    assert r.seen[0]["role"] == "opener" and "minimal-spec" in r.seen[0]["system"]
    turn = doc.turns[0]
    assert turn.run.argv[-2:] == ["--mcp", "context7"]
    res = {x["name"]: x["passed"] for x in turn.verdict.dimensions["checks"].data["results"]}
    assert res == {"right_assoc_pow": True, "mcp-tool-called": True}
    assert doc.data["opener"]["hidden_requirements"] == ["right-associative ^", "clean errors"]
    assert "right-associative" not in turn.prompt  # hidden requirements never reach the swarm


@pytest.mark.slow  # two graded swarm runs
def test_brain_tweaker_out_of_scope_knobs_are_rejected_and_the_rest_applied(cfg, rdcalc, responder):
    sim_pool(cfg, "weight", "gguf-box", "0")
    r = responder({"opener": [opener(rdcalc, "right_assoc_pow")],
                   "tweaker": [{"changes": [{"key": "swarm.binary", "value": "/bin/sh"},
                                            {"key": "env.LD_PRELOAD", "value": "/tmp/evil.so"},
                                            {"key": "env.GOOSE_MAX_BACKGROUND_TASKS", "value": 3},
                                            {"key": "planner_model", "value": "qwen3-coder-30b"},
                                            {"key": "pool.gguf-box.weight", "value": 1}],
                                "rationale": "gguf-box got nothing"}]})
    doc = run_session(cfg, "heavy-spec", seed=5, turns=1, judge=False, tweak=True, tweaker="brain")
    assert "tweaker" in r.roles() and "pool.<device>.weight" in next(s for s in r.seen if s["role"] == "tweaker")["system"]
    tw = doc.turns[1].tweak
    assert [x["key"] for x in tw["rejected"]] == ["swarm.binary", "env.LD_PRELOAD"]
    assert all("scope" in x["reason"] for x in tw["rejected"])
    assert tw["env_overrides"] == {"GOOSE_MAX_BACKGROUND_TASKS": "3"}
    assert tw["manual"] == [{"key": "planner_model", "value": "qwen3-coder-30b", "note": "proposed, applied manually"}]
    assert tw["proposal"]["source"] == "operator" and tw["after"]["gguf-box"] > 0
    assert doc.turns[1].kind == "tweak-rerun" and doc.turns[1].verdict.status("checks") == "pass"


def test_a_swarm_that_cannot_start_is_an_error_turn_not_a_crash(home, rdcalc, responder):
    from swarmgym.config import load_config

    cfg = load_config(home, environ={}, overrides={"swarm.binary": str(home / "no-such-goose")})
    responder({"opener": [opener(rdcalc, "right_assoc_pow")]})
    doc = run_session(cfg, "heavy-spec", turns=3, judge=False, adapter="goose")
    assert len(doc.turns) == 1 and doc.turns[0].error.type == "AdapterError"
    assert "no-such-goose" in doc.turns[0].error.message and doc.overall == "error"
