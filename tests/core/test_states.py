"""Job and campaign states are typed: the worker reads a job's state, it does not grep JSON for it."""
from __future__ import annotations

import json

import pytest

from swarmgym.core.states import CampaignStatus, JobStatus
from swarmgym.queue import keys


@pytest.fixture()
def r(rdb):
    """The session's throwaway Redis (flushed around the test); under CI=true a missing one fails."""
    return rdb


def test_a_done_job_is_seen_as_done_however_its_json_is_spaced(r):
    from swarmgym.queue import deadhosts

    r.hset(keys.campaign_jobs("c1"), "c1-000", json.dumps({"s": "done", "h": "h"}))
    r.hset(keys.campaign_jobs("c1"), "c1-001", json.dumps({"s": "done"}, separators=(",", ":")))
    r.hset(keys.campaign_jobs("c1"), "c1-002", json.dumps({"h": "h", "note": '"s": "done"', "s": "queued"}))
    assert deadhosts.job_done(r, "c1", "c1-000") and deadhosts.job_done(r, "c1", "c1-001")  # a substring match misses one
    assert not deadhosts.job_done(r, "c1", "c1-002")  # and is fooled by this
    assert not deadhosts.job_done(r, "c1", "nope")


def test_states_serialise_as_their_plain_values():
    assert json.dumps({"s": JobStatus.TIMEOUT, "c": CampaignStatus.FINALIZED}) == '{"s": "timeout", "c": "finalized"}'
    assert CampaignStatus.CANCELLED.terminal and not CampaignStatus.RUNNING.terminal
