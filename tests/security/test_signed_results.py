"""The broker believes only its hosts: a ``record_job`` counts only when signed with the key of the
host it names, for a job that host leased (issue #20 item 4; docs/security.md).

Against a real (throwaway) Redis; the end-to-end attack on a real coordinator and host is in
``test_broker_believes_only_its_hosts.py``.
"""
from __future__ import annotations

import secrets

from swarmgym.models import JobResult, Verdict
from swarmgym.queue import accept, counters, keys
from swarmgym.queue.lease import JobLease, mark_leased
from swarmgym.trust.signing import sign


def _passing(job, host="h1") -> JobResult:
    return JobResult(job=job, session_id=f"s-{job.job_id}", host=host, status="done",
                     verdict=Verdict(overall="pass", functional=True))


def test_an_unsigned_result_is_refused(planned):
    cfg, r, camp, job = planned
    mark_leased(r, camp.campaign_id, job.job_id, "h1", 60)
    res = _passing(job)
    why = accept.record_refusal(cfg, r, res, res.model_dump(mode="json"), None, None)
    assert why and "unsigned" in why


def test_a_result_signed_with_a_key_the_coordinator_does_not_know_is_refused(planned):
    cfg, r, camp, job = planned
    mark_leased(r, camp.campaign_id, job.job_id, "h1", 60)
    res = _passing(job)
    payload = res.model_dump(mode="json")
    why = accept.record_refusal(cfg, r, res, payload, None, sign(secrets.token_bytes(32), "h1", payload))
    assert why and "bad signature" in why


def test_a_result_signed_with_another_hosts_key_is_refused(planned):
    cfg, r, camp, job = planned
    mark_leased(r, camp.campaign_id, job.job_id, "h1", 60)
    why = planned.refusal(_passing(job, "h1"), signer="h2")  # h2 is trusted, but the result claims h1
    assert why and "bad signature" in why and "'h1'" in why


def test_a_host_missing_from_the_keyring_is_refused_even_with_a_valid_looking_signature(planned):
    cfg, r, camp, job = planned
    from swarmgym.trust.hostkeys import new_key_file

    mark_leased(r, camp.campaign_id, job.job_id, "h3", 60)
    key = new_key_file(planned.keys / "h3.key", "h3")
    res = _passing(job, "h3")
    payload = res.model_dump(mode="json")
    why = accept.record_refusal(cfg, r, res, payload, None, sign(key, "h3", payload))
    assert why and "not in the coordinator's keyring" in why


def test_a_signature_replayed_from_another_job_is_refused(planned):
    cfg, r, camp, job = planned
    other = camp.jobs[0].model_copy(update={"job_id": job.job_id + "-other"})
    real = _passing(other).model_dump(mode="json")
    sig = sign(planned.key("h1"), "h1", real)  # a genuine signature, for another job
    mark_leased(r, camp.campaign_id, job.job_id, "h1", 60)
    res = _passing(job)
    why = accept.record_refusal(cfg, r, res, res.model_dump(mode="json"), None, sig)
    assert why and "bad signature" in why


def test_a_verdict_edited_after_signing_is_refused(planned):
    cfg, r, camp, job = planned
    mark_leased(r, camp.campaign_id, job.job_id, "h1", 60)
    failing = JobResult(job=job, session_id="s", host="h1", status="done", verdict=Verdict(overall="fail", functional=False))
    payload = failing.model_dump(mode="json")
    sig = sign(planned.key("h1"), "h1", payload)
    payload["verdict"]["overall"], payload["verdict"]["functional"] = "pass", True
    edited = JobResult.model_validate(payload)
    assert "bad signature" in accept.record_refusal(cfg, r, edited, payload, None, sig)


def test_a_run_folder_swapped_after_signing_is_refused(planned):
    cfg, r, camp, job = planned
    mark_leased(r, camp.campaign_id, job.job_id, "h1", 60)
    res = _passing(job)
    payload = res.model_dump(mode="json")
    sig = sign(planned.key("h1"), "h1", payload, "real-bundle")
    assert accept.record_refusal(cfg, r, res, payload, "real-bundle", sig) is None
    assert "bad signature" in accept.record_refusal(cfg, r, res, payload, "forged-bundle", sig)


def test_a_signed_result_for_a_job_no_host_ever_leased_is_refused(planned):
    cfg, r, camp, job = planned
    assert counters.intact(r, camp.campaign_id)  # Redis has held the campaign since enqueue: nothing was lost
    why = planned.refusal(_passing(job))  # even with h1's real key (a stolen key, a confused host)
    assert why and "never leased" in why


def test_a_lease_that_expired_still_proves_its_host(planned):
    cfg, r, camp, job = planned
    lease = JobLease(r, job.job_id, "h1", 2)
    assert lease.acquire()
    mark_leased(r, camp.campaign_id, job.job_id, "h1", 60)
    lease._stop.set()
    r.delete(lease.key)  # the lease's TTL ran out (a long ledger retry, a slow coordinator)
    assert planned.refusal(_passing(job)) is None
    assert "held by h1" in planned.refusal(_passing(job, "h2"))


def test_after_redis_lost_the_campaign_a_signed_planned_result_is_accepted(planned):
    cfg, r, camp, job = planned
    r.flushdb()  # Redis restarted without persistence: leases, marks and the campaign's epoch are gone
    assert not counters.intact(r, camp.campaign_id)
    assert planned.refusal(_passing(job)) is None  # resume after a flush loses no finished job
    res = _passing(job)
    assert "unsigned" in accept.record_refusal(cfg, r, res, res.model_dump(mode="json"), None, None)


def test_counters_rebuilt_after_a_flush_do_not_pretend_nothing_was_lost(planned):
    from swarmgym.queue import store
    from swarmgym.queue.asking import CoordinatorSource

    cfg, r, camp, job = planned
    r.flushdb()
    store.ensure_redis(r, camp, recorded={}, ttl=60)  # what the coordinator does when it finds them gone
    assert r.exists(keys.campaign(camp.campaign_id)) and not counters.intact(r, camp.campaign_id)
    CoordinatorSource(cfg, r).save(camp.model_copy(update={"cancelled": True}))  # nor a later refresh (cancel)
    assert not counters.intact(r, camp.campaign_id)


def test_a_result_from_a_host_that_leased_before_another_is_accepted_when_no_lease_is_held(planned):
    cfg, r, camp, job = planned
    mark_leased(r, camp.campaign_id, job.job_id, "h1", 60)  # h1 ran it, went silent, the job was re-sent
    mark_leased(r, camp.campaign_id, job.job_id, "h2", 60)  # and h2 took it
    assert planned.refusal(_passing(job, "h1")) is None
    assert planned.refusal(_passing(job, "h2")) is None
