"""Job leases on a real (throwaway) Redis: one holder, renewed while running, released at the end."""
from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

import pytest

from swarmgym.queue import keys
from swarmgym.queue.lease import JobLease
from tests.support.queue import SPARE_DB, client

pytestmark = pytest.mark.redis


@pytest.fixture
def r(redis_server):
    r = client(SPARE_DB)
    made = []
    yield lambda: made.append(f"lease-test-{uuid.uuid4().hex[:8]}") or made[-1]
    for j in made:
        r.delete(keys.lease(j))


@pytest.fixture
def db13(redis_server):
    return client(SPARE_DB)


def test_a_second_host_is_refused_while_the_first_holds_the_lease(r, db13):
    job = r()
    a, b = JobLease(db13, job, "host-a", ttl=5), JobLease(db13, job, "host-b", ttl=5)
    assert a.acquire()
    try:
        assert not b.acquire() and b.held_by.startswith("host-a|")
    finally:
        a.release()
    assert db13.get(keys.lease(job)) is None
    assert b.acquire()
    b.release()


def test_the_lease_is_renewed_past_its_ttl_while_the_job_runs(r, db13):
    job = r()
    a = JobLease(db13, job, "host-a", ttl=2)
    assert a.acquire()
    time.sleep(3.5)
    assert db13.get(keys.lease(job)) == a.value and not a.lost
    a.release()


def test_a_flushed_lease_is_set_again_by_the_renewer(r, db13):
    job = r()
    a = JobLease(db13, job, "host-a", ttl=2)
    assert a.acquire()
    db13.delete(keys.lease(job))
    time.sleep(1.5)
    assert db13.get(keys.lease(job)) == a.value
    a.release()


def test_release_never_deletes_someone_elses_lease(r, db13):
    job = r()
    a = JobLease(db13, job, "host-a", ttl=5)
    assert a.acquire()
    db13.set(keys.lease(job), "host-b|1|x", ex=5)
    a.release()
    assert db13.get(keys.lease(job)) == "host-b|1|x"


def test_a_lease_left_by_a_dead_process_of_the_same_host_is_taken_over(r, db13):
    job = r()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    db13.set(keys.lease(job), f"host-a|{dead.pid}|old", ex=60)
    assert JobLease(db13, job, "host-b", ttl=5).acquire() is False  # another host: a duplicate
    a = JobLease(db13, job, "host-a", ttl=5)
    assert a.acquire()
    a.release()


def test_a_lease_of_an_earlier_life_of_this_host_is_taken_over_by_the_new_life(r, db13):
    job = r()
    db13.set(keys.lease(job), f"host-a|life-1|{os.getpid()}|tok", ex=60)  # its process may even still run
    assert JobLease(db13, job, "host-a", ttl=5, life="life-1").acquire() is False  # the same life: not ours
    a = JobLease(db13, job, "host-a", ttl=5, life="life-2")
    assert a.acquire() and db13.get(keys.lease(job)).startswith("host-a|life-2|")
    a.release()


def test_a_renewer_whose_delivery_was_re_sent_never_takes_a_lost_lease_back(r, db13):
    job = r()
    a = JobLease(db13, job, "host-a", ttl=2, task_id=f"{job}-t1")
    assert a.acquire()
    db13.hset(keys.STALE, f"{job}-t1", "{}")  # the coordinator re-sent the job while this host was silent
    db13.delete(keys.lease(job))
    try:
        time.sleep(1.5)
        assert db13.get(keys.lease(job)) is None and a.lost
    finally:
        a.release()
        db13.hdel(keys.STALE, f"{job}-t1")
