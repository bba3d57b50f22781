"""Check kinds: one small class per ``kind:`` a suite's check may name, in one table (:data:`KINDS`).

Each kind follows :class:`~swarmgym.grading.kinds.base.CheckKind` — a ``name`` and
``run(check, ctx) -> CheckResult`` — and gets the grading's :class:`~swarmgym.grading.context.GradingContext`
(the workspace, the evidence, the one check box, the row filter).  :func:`swarmgym.grading.grade.grade`
looks each check's kind up here and knows nothing else about it.

Adding a kind (a row-based behavioural check, a structural probe, …):

1. the suite data: add its name to ``CheckKind`` in :mod:`swarmgym.suitekit.suite`, with the suite.yaml keys
   it needs in ``KIND_KEYS`` (and any new optional key on ``Check``: an unset key leaves every frozen
   suite's hash as it was);
2. the grading: a class with ``name`` and ``run`` in a module of this package, added to :data:`KINDS` below.

``tests/grading/test_kinds.py`` holds the suite loader's kinds and this table to the same names.  Nothing
registers itself by being imported; :func:`register_kind` is for kinds defined outside swarmgym.
"""
from __future__ import annotations

from swarmgym.core.errors import SuiteError
from swarmgym.grading.kinds.base import CheckKind, result
from swarmgym.grading.kinds.command import CommandSucceeds
from swarmgym.grading.kinds.differential import Differential, Rows
from swarmgym.grading.kinds.files import FileContains, FileExists, FileMatches
from swarmgym.grading.kinds.probe import ProbeKind
from swarmgym.grading.kinds.tool import ToolCalled, tool_names

__all__ = ["KINDS", "CheckKind", "get_kind", "register_kind", "result", "tool_names"]

KINDS: dict[str, CheckKind] = {k.name: k for k in (
    CommandSucceeds(), FileExists(), FileContains(), FileMatches(), ToolCalled(), Differential(), Rows(),
    ProbeKind())}


def register_kind(kind: CheckKind) -> None:
    """Grade checks of ``kind.name`` with ``kind`` (replacing any kind of that name)."""
    KINDS[kind.name] = kind


def get_kind(name: str) -> CheckKind:
    """The kind called ``name``; SuiteError naming the known ones otherwise."""
    kind = KINDS.get(name)
    if kind is None:
        raise SuiteError(f"unknown check kind {name!r}; expected one of {', '.join(KINDS)}")
    return kind
