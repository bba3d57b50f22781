"""The claude brain through the real Anthropic SDK against a loopback Messages API."""
from __future__ import annotations

import pytest
from pydantic import BaseModel

from swarmgym.brains import ask_json, get_brain
from swarmgym.config import load_config
from swarmgym.core.errors import BrainError

from .loopback_servers import anthropic_error, anthropic_message


class Idea(BaseModel):
    app_slug: str
    checks: int


@pytest.fixture
def claude(tmp_path, monkeypatch, scripted):
    def make(replies, **over):
        server = scripted(replies)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
        cfg = load_config(tmp_path, environ={}, overrides={"brain.anthropic_base_url": server.url, **over})
        brain = get_brain("claude", cfg)
        brain.backoff = 0.01
        return brain, server
    return make


def test_valid_reply_is_parsed_and_tokens_are_counted(claude):
    brain, server = claude([(200, anthropic_message('Here you go:\n{"app_slug": "tally", "checks": 3}'), {})])
    idea = ask_json(brain, "opener", "You invent apps.", "Invent one.", Idea, max_reasks=2)
    assert idea == Idea(app_slug="tally", checks=3)
    assert brain.usage.input_tokens == 120 and brain.usage.output_tokens == 45 and brain.usage.calls == 1
    req = server.requests[0]
    assert req["path"] == "/v1/messages"
    sent = req["headers"].get("x-api-key") or req["headers"].get("authorization", "")
    assert sent.endswith("sk-ant-test-not-a-real-key")
    assert req["json"]["model"] == "claude-sonnet-5-5"
    assert req["json"]["messages"] == [{"role": "user", "content": "Invent one."}]
    assert "exactly one JSON object" in req["json"]["system"]


def test_judge_role_uses_the_judge_model(claude):
    brain, server = claude([(200, anthropic_message('{"app_slug": "x", "checks": 1}', model="claude-opus-5-5"), {})])
    ask_json(brain, "judge", "Judge.", "Judge this.", Idea)
    assert server.requests[0]["json"]["model"] == "claude-opus-5-5"


def test_invalid_reply_is_reasked_with_the_validation_error(claude):
    brain, server = claude([
        (200, anthropic_message('{"app_slug": "tally", "checks": "many"}'), {}),
        (200, anthropic_message('{"app_slug": "tally", "checks": 4}'), {}),
    ])
    idea = ask_json(brain, "opener", "sys", "Invent one.", Idea, max_reasks=2)
    assert idea.checks == 4
    second = server.requests[1]["json"]["messages"][0]["content"]
    assert second.startswith("Invent one.") and "checks" in second and "rejected" in second
    assert brain.usage.calls == 2 and brain.usage.output_tokens == 90


def test_two_json_objects_count_as_invalid_until_reasks_run_out(claude):
    two = anthropic_message('{"app_slug": "a", "checks": 1} or maybe {"app_slug": "b", "checks": 2}')
    brain, server = claude([(200, two, {}), (200, two, {})])
    with pytest.raises(BrainError, match="2 JSON objects"):
        ask_json(brain, "opener", "sys", "u", Idea, max_reasks=1)
    assert len(server.requests) == 2


def test_overloaded_529_is_retried_then_answered(claude):
    brain, server = claude([anthropic_error(529, "overloaded_error", "Overloaded"),
                            (200, anthropic_message('{"app_slug": "tally", "checks": 2}'), {})])
    assert ask_json(brain, "opener", "sys", "u", Idea).checks == 2
    assert len(server.requests) == 2


def test_persistent_overload_becomes_a_brain_error_not_a_crash(claude):
    brain, server = claude([anthropic_error(529, "overloaded_error", "Overloaded")] * 6,
                           **{"brain.max_retries": 0})
    brain.loops = 3
    with pytest.raises(BrainError, match="gave up after 3 rounds"):
        brain.complete("opener", "sys", "u")
    assert len(server.requests) == 3


def test_bad_request_is_not_retried(claude):
    brain, server = claude([anthropic_error(400, "invalid_request_error", "max_tokens: too large")])
    with pytest.raises(BrainError, match="BadRequestError"):
        brain.complete("opener", "sys", "u")
    assert len(server.requests) == 1


def test_missing_api_key_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    brain = get_brain("claude", load_config(tmp_path, environ={}))
    with pytest.raises(BrainError, match="ANTHROPIC_API_KEY is not set"):
        brain.complete("opener", "s", "u")


def test_provider_env_picks_the_brain(tmp_path):
    cfg = load_config(tmp_path, environ={"SWARMGYM_PROVIDER": "operator"})
    assert get_brain(None, cfg).name == "operator"
