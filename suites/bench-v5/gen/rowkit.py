"""Small step builders for the per-spec edge modules (``edges_<slug>.py``): a step on the row's ``--db {db}``."""
from __future__ import annotations

from typing import Any

from edges import _step


def db(*argv: str, **kw: Any) -> dict[str, Any]:
    """A step run with ``--db {db}`` first (``out`` defaults to ``exact``: the stdout the prompt fixes)."""
    return _step(["--db", "{db}", *argv], **kw)


def err(*argv: str, prefix: str = "error:") -> dict[str, Any]:
    """An error step: one line starting with ``prefix`` on stderr, nothing on stdout, exit 1, no traceback."""
    return db(*argv, out="any", exit=1, err=prefix)


def refused(*argv: str) -> dict[str, Any]:
    """A refusal whose form the prompt leaves open (argparse's usage error or the app's own): non-zero exit."""
    return db(*argv, out="any", exit="nonzero")


def quiet(*argv: str) -> dict[str, Any]:
    """A step whose stdout the prompt leaves open (it must still exit 0)."""
    return db(*argv, out="any")
