"""The xdist group of a shared fixture (``--dist loadgroup``, docs/testing.md): tests that take the same
module- or session-scoped fixture run on one worker, so it is built once per run, not once per worker.
``tests/conftest.py`` groups every test that takes one by name; a test that reaches one through
``request.getfixturevalue`` marks itself with :func:`shared_group_name`."""
from __future__ import annotations


def shared_group_name(baseid: str, fixture: str) -> str:
    """The group of the session fixture ``fixture`` defined in the conftest at ``baseid`` (``tests/security``)."""
    return f"{baseid}::{fixture}"
