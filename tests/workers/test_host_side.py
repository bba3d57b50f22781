"""The host side is thin: ``workers/`` reaches the queue through its claim API alone, and the coordinator
side never imports the host side (docs/architecture.md sections 11 and 12)."""
from __future__ import annotations

from tests.support import layers

#: what of the queue a host may use: its one door, and the queue's names and config
HOST_DOOR = {"swarmgym.queue", "swarmgym.queue.claim", "swarmgym.queue.keys", "swarmgym.queue.routing",
             "swarmgym.queue.appconfig"}


def test_workers_use_only_the_claim_api_of_the_queue():
    graph = layers.imports()
    used = {(mod, dep) for mod, deps in graph.items() if mod.startswith("swarmgym.workers")
            for dep in deps if dep.startswith("swarmgym.queue") and dep not in HOST_DOOR}
    assert not used, f"workers/ reaches coordinator internals: {sorted(used)}"


def test_nothing_of_the_queue_imports_the_host_side():
    graph = layers.imports()
    up = {(mod, dep) for mod, deps in graph.items() if mod.startswith("swarmgym.queue")
          for dep in deps if dep.startswith("swarmgym.workers")}
    assert not up, f"the queue imports the host side: {sorted(up)}"
