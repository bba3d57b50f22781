"""Job and campaign states are typed: the worker reads a job's state, it does not grep JSON for it."""
from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time

import pytest
import redis

from swarmgym.queue import store
from swarmgym.states import CampaignStatus, JobStatus


@pytest.fixture()
def r(tmp_path):
    if not shutil.which("redis-server"):
        pytest.skip("redis-server not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
    client = redis.Redis(port=port, decode_responses=True)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    yield client
    proc.terminate()
    proc.wait(5)


def test_a_done_job_is_seen_as_done_however_its_json_is_spaced(r):
    from swarmgym.queue import deadhosts

    r.hset(store.jobs_key("c1"), "c1-000", json.dumps({"s": "done", "h": "h"}))
    r.hset(store.jobs_key("c1"), "c1-001", json.dumps({"s": "done"}, separators=(",", ":")))
    r.hset(store.jobs_key("c1"), "c1-002", json.dumps({"h": "h", "note": '"s": "done"', "s": "queued"}))
    assert deadhosts.job_done(r, "c1", "c1-000") and deadhosts.job_done(r, "c1", "c1-001")  # a substring match misses one
    assert not deadhosts.job_done(r, "c1", "c1-002")  # and is fooled by this
    assert not deadhosts.job_done(r, "c1", "nope")


def test_states_serialise_as_their_plain_values():
    assert json.dumps({"s": JobStatus.TIMEOUT, "c": CampaignStatus.FINALIZED}) == '{"s": "timeout", "c": "finalized"}'
    assert CampaignStatus.CANCELLED.terminal and not CampaignStatus.RUNNING.terminal
