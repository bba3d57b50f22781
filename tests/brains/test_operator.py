"""The operator handshake end to end: a responder thread plays the human at the keyboard."""
from __future__ import annotations

import json
import threading
import time

import pytest
from pydantic import BaseModel

from swarmgym.brains import ask_json, get_brain
from swarmgym.config import load_config
from swarmgym.core.errors import BrainError


class Move(BaseModel):
    move: str


def operator(tmp_path, **over):
    # a finite wait: a test whose answer never comes fails in a minute instead of hanging for the default 30
    cfg = load_config(tmp_path, environ={}, overrides={"brain.operator_poll_secs": 0.02,
                                                       "brain.operator_timeout_secs": 60, **over})
    return get_brain("operator", cfg), tmp_path / "runs" / "operator"


def answer_later(folder, n, texts, delay=0.1, seen=None):
    """Write each of ``texts`` to resp-<n>.txt in turn, ``delay`` apart; note PENDING.md as it was."""
    def run():
        req, pending = folder / f"req-{n}.json", folder / "PENDING.md"
        deadline = time.monotonic() + 30
        while not req.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        if seen is not None:  # the brain writes the request, then lists it in PENDING.md
            while f"req-{n}.json" not in (pending.read_text() if pending.exists() else "") \
                    and time.monotonic() < deadline:
                time.sleep(0.01)
            seen["pending"] = pending.read_text()
            seen["req"] = json.loads(req.read_text())
        for t in texts:
            time.sleep(delay)
            (folder / f"resp-{n}.txt").write_text(t)
    th = threading.Thread(target=run, daemon=True)
    th.start()
    return th


def test_request_blocks_until_a_non_empty_answer_and_returns_it_verbatim(tmp_path):
    brain, folder = operator(tmp_path)
    seen: dict = {}
    th = answer_later(folder, 1, ["", "   \n", 'ok: {"move": "fix"}\n'], delay=0.15, seen=seen)
    start = time.monotonic()
    reply = brain.complete("next_move", "You are the user.", "What next?", 777)
    th.join()
    assert reply == 'ok: {"move": "fix"}\n'
    assert time.monotonic() - start >= 0.4  # the two empty writes did not unblock it
    req = seen["req"]
    assert req["id"] == 1 and req["role"] == "next_move" and req["system"] == "You are the user."
    assert req["user"] == "What next?" and req["max_tokens"] == 777 and req["ts"] > 0
    assert "- [ ] `req-1.json` (next_move" in seen["pending"]
    assert "req-1.json" not in (folder / "PENDING.md").read_text()  # removed once answered


def test_numbering_continues_from_the_highest_existing_request(tmp_path):
    brain, folder = operator(tmp_path)
    folder.mkdir(parents=True)
    (folder / "req-7.json").write_text("{}")
    (folder / "req-3.json").write_text("{}")
    answer_later(folder, 8, ['{"move": "done"}'], delay=0.02)
    assert ask_json(brain, "next_move", "s", "u", Move).move == "done"
    assert (folder / "req-8.json").exists()


def test_invalid_answer_is_reasked_through_a_new_request(tmp_path):
    brain, folder = operator(tmp_path)
    answer_later(folder, 1, ["I think you should fix it."], delay=0.02)
    answer_later(folder, 2, ['{"move": "fix"}'], delay=0.02)
    assert ask_json(brain, "next_move", "s", "u", Move, max_reasks=1).move == "fix"
    assert "no JSON object" in json.loads((folder / "req-2.json").read_text())["user"]


def test_no_answer_times_out_with_an_error_naming_the_file(tmp_path):
    brain, folder = operator(tmp_path, **{"brain.operator_timeout_secs": 0.3})
    with pytest.raises(BrainError, match=r"no answer in .*resp-1\.txt after 0\.3s"):
        brain.complete("opener", "s", "u")
    assert "req-1.json" not in (folder / "PENDING.md").read_text()


def test_waiting_brain_says_which_file_it_waits_for_and_where(tmp_path, capsys):
    brain, folder = operator(tmp_path)
    answer_later(folder, 1, ['{"move": "fix"}'], delay=0.05)
    brain.complete("next_move", "s", "u")
    err = capsys.readouterr().err
    assert f"waiting for the next_move reply in {folder / 'resp-1.txt'}" in err
    assert "req-1.json" in err and str(folder / "PENDING.md") in err
    assert "got the next_move reply from resp-1.txt" in err


def test_rerun_after_timeout_picks_up_the_reply_written_late(tmp_path):
    brain, folder = operator(tmp_path, **{"brain.operator_timeout_secs": 0.2})
    with pytest.raises(BrainError, match=r"write the reply to resp-1\.txt and re-run") as exc:
        ask_json(brain, "opener", "sys", "same question", Move)
    assert "same request" in str(exc.value)
    (folder / "resp-1.txt").write_text('{"move": "late answer"}')  # the operator answers after the timeout
    again, _ = operator(tmp_path, **{"brain.operator_timeout_secs": 0.2})  # the re-run: a new process's brain
    assert ask_json(again, "opener", "sys", "same question", Move).move == "late answer"
    assert sorted(p.name for p in folder.glob("req-*.json")) == ["req-1.json"]  # no new request was made


def test_rerun_after_timeout_keeps_waiting_on_the_same_file(tmp_path):
    brain, folder = operator(tmp_path, **{"brain.operator_timeout_secs": 0.2})
    with pytest.raises(BrainError):
        brain.complete("opener", "sys", "q")
    again, _ = operator(tmp_path)
    answer_later(folder, 1, ['{"move": "now"}'], delay=0.1)
    assert again.complete("opener", "sys", "q") == '{"move": "now"}'
    assert not (folder / "req-2.json").exists()


def test_a_different_question_after_a_timeout_gets_a_new_request(tmp_path):
    brain, folder = operator(tmp_path, **{"brain.operator_timeout_secs": 0.2})
    with pytest.raises(BrainError):
        brain.complete("opener", "sys", "q")
    (folder / "resp-1.txt").write_text('{"move": "for q"}')
    again, _ = operator(tmp_path)
    answer_later(folder, 2, ['{"move": "for other"}'], delay=0.05)
    assert again.complete("opener", "sys", "other") == '{"move": "for other"}'
