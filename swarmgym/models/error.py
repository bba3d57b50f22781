"""Errors as data: :class:`ErrorInfo`, with the traceback capped."""
from __future__ import annotations

import traceback as _traceback

from swarmgym.models.base import Model

TRACE_FRAMES = 30
"""At most this many frames of a traceback are kept (the innermost ones: where it failed)."""
TRACE_CHARS = 4000
"""At most this many characters of a traceback are kept (its end)."""


def format_trace(exc: BaseException) -> str | None:
    """``exc``'s traceback as Python prints it (chained causes included), capped to its last
    :data:`TRACE_FRAMES` frames and last :data:`TRACE_CHARS` characters; ``None`` if it was never raised."""
    if exc.__traceback__ is None:
        return None
    text = "".join(_traceback.format_exception(exc, limit=-TRACE_FRAMES))
    return text if len(text) <= TRACE_CHARS else "…" + text[-(TRACE_CHARS - 1):]


class ErrorInfo(Model):
    type: str
    """The exception's class name (e.g. ``AdapterError``)."""
    message: str
    """What went wrong, in one line (at most 2000 characters)."""
    traceback: str | None = None
    """Where it went wrong: the formatted traceback, innermost frame last (its last 30 frames and 4,000
    characters); ``None`` for an error noted without an exception, and in records written before it was kept."""

    @classmethod
    def of(cls, exc: BaseException) -> "ErrorInfo":
        return cls(type=type(exc).__name__, message=str(exc)[:2000], traceback=format_trace(exc))
