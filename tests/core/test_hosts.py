"""One host name for records, queues and worker names."""
from __future__ import annotations

import socket

from swarmgym.core.hosts import host_name


def test_host_name_prefers_swarmgym_host_then_the_worker_host_then_the_short_machine_name():
    assert host_name({"SWARMGYM_HOST": "studio", "SWARMGYM_WORKER_HOST": "w"}) == "studio"
    assert host_name({"SWARMGYM_WORKER_HOST": "gguf-box"}) == "gguf-box"
    assert host_name({}) == socket.gethostname().split(".")[0]
    assert "." not in host_name({})
