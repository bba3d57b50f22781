"""Fixtures for the brain tests."""
from __future__ import annotations

import pytest

from .loopback_servers import Scripted


@pytest.fixture
def scripted():
    servers = []

    def make(replies):
        s = Scripted(replies)
        servers.append(s)
        return s
    yield make
    for s in servers:
        s.close()
