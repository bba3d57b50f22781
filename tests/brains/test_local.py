"""The local brain against a loopback OpenAI-compatible chat completions server."""
from __future__ import annotations

from pydantic import BaseModel

from swarmgym.brains import ask_json, get_brain, strip_think
from swarmgym.config import load_config

from .loopback_servers import chat_completion


class Move(BaseModel):
    move: str


def test_think_blocks_are_stripped_and_budget_is_large(tmp_path, scripted):
    server = scripted([(200, chat_completion('<think>Maybe {"move": "fix"}? No.</think>\n{"move": "feature"}'), {})])
    cfg = load_config(tmp_path, environ={}, overrides={"brain.local_endpoint": server.url + "/v1"})
    brain = get_brain("local", cfg)
    assert ask_json(brain, "next_move", "sys", "what next?", Move, max_tokens=1024).move == "feature"
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["json"]["max_tokens"] == 32768
    assert [m["role"] for m in req["json"]["messages"]] == ["system", "user"]
    assert "authorization" not in {k.lower() for k in req["headers"]}
    assert brain.usage.input_tokens == 200 and brain.usage.output_tokens == 900


def test_server_error_is_retried(tmp_path, scripted):
    server = scripted([(503, {"error": "model loading"}, {}), (200, chat_completion('{"move": "done"}'), {})])
    cfg = load_config(tmp_path, environ={}, overrides={"brain.local_endpoint": server.url + "/v1"})
    brain = get_brain("local", cfg)
    brain.backoff = 0.01
    assert ask_json(brain, "next_move", "s", "u", Move).move == "done"
    assert len(server.requests) == 2


def test_strip_think_handles_unclosed_and_headless_blocks():
    assert strip_think("answer <think>still thinking") == "answer"
    assert strip_think('reasoning... </think> {"a": 1}') == '{"a": 1}'
