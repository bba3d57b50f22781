"""Get exactly one valid JSON object out of a brain reply, re-asking a bounded number of times."""
from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ValidationError

from swarmgym.core.errors import BrainError

if TYPE_CHECKING:
    from swarmgym.brains.base import Brain

M = TypeVar("M", bound=BaseModel)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


class ReplyError(ValueError):
    """The reply holds no JSON object, or more than one."""


def strip_think(text: str) -> str:
    """Drop ``<think>…</think>`` reasoning blocks (and a dangling opening or closing part)."""
    text = _THINK.sub("", text)
    low = text.lower()
    if "</think>" in low:  # opening tag eaten by the chat template: keep what follows the last close
        text = text[low.rfind("</think>") + len("</think>"):]
    elif "<think>" in low:  # reasoning never closed: nothing after it is an answer
        text = text[:low.find("<think>")]
    return text.strip()


def json_objects(text: str) -> list[dict]:
    """Every top-level JSON object embedded in ``text`` (prose and code fences around it are fine)."""
    dec = json.JSONDecoder()
    found: list[dict] = []
    i = text.find("{")
    while i != -1:
        try:
            obj, end = dec.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict):
            found.append(obj)
        i = text.find("{", end)
    return found


def extract_one_json(text: str) -> dict:
    objs = json_objects(strip_think(text))
    if not objs:
        raise ReplyError("the reply holds no JSON object")
    if len(objs) > 1:
        raise ReplyError(f"the reply holds {len(objs)} JSON objects; exactly one is allowed")
    return objs[0]


def _explain(err: Exception) -> str:
    if isinstance(err, ValidationError):
        parts = []
        for e in err.errors()[:5]:
            loc = ".".join(str(x) for x in e["loc"]) or "top level"
            parts.append(f"{loc}: {e['msg'].removeprefix('Value error, ')}")
        return "; ".join(parts)
    return str(err)


def schema_hint(schema: type[BaseModel]) -> str:
    return json.dumps(schema.model_json_schema(), separators=(",", ":"))


def ask_json(brain: "Brain", role: str, system: str, user: str, schema: type[M], max_reasks: int = 2,
             max_tokens: int | None = None) -> M:
    """Ask ``brain`` and return its reply validated as ``schema``.

    The reply must hold exactly one JSON object.  An invalid reply is re-asked with the validation
    error appended, at most ``max_reasks`` times; then :class:`BrainError` is raised (callers store
    it in the turn as data — a bad brain never crashes a session).  A brain with a ``rejected(role,
    reason, tries_left)`` method is told of every rejected reply (the operator brain says it on stderr).
    """
    system = (f"{system}\n\nAnswer with exactly one JSON object (no second object, no JSON array) "
              f"that validates against this JSON schema:\n{schema_hint(schema)}")
    prompt, last = user, ""
    tries = max(0, max_reasks) + 1
    for attempt in range(tries):
        reply = brain.complete(role, system, prompt, max_tokens)
        try:
            return schema.model_validate(extract_one_json(reply))
        except (ReplyError, ValidationError) as e:
            last = " ".join(_explain(e).split())
        told = getattr(brain, "rejected", None)  # optional: a brain that wants to say so (the operator's stderr)
        if callable(told):
            told(role, last, tries - attempt - 1)
        prompt = (f"{user}\n\n---\nYour previous reply was rejected: {last}\n"
                  f"Reply again with exactly one JSON object of the requested shape.")
    raise BrainError(f"{brain.name} brain: no valid {schema.__name__} for role {role!r} after "
                     f"{max(0, max_reasks) + 1} tries; last problem: {last}")
