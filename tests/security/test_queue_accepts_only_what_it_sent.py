"""The queue accepts only what it sent: forged ``record_job`` and injected ``JobSpec.env`` are refused,
and every refusal stays visible (log, ``swarmgym:refused``, ``runs/refused/``).

Unit-level rules run against a throwaway Redis; the fleet tests send the forged messages to the real
coordinator and host worker of the hostile fleet campaign (an attacker who got the broker password).
"""
from __future__ import annotations

import json
import time

import pytest

from swarmgym.campaigns.plan import load_campaign, save_campaign
from swarmgym.config import load_config
from swarmgym.models import JobResult
from swarmgym.queue import accept, keys
from swarmgym.queue.lease import JobLease, mark_leased
from swarmgym.queue.routing import COORDINATOR_QUEUE, variant_queue
from swarmgym.trust.hostkeys import read_key_file
from swarmgym.trust.signing import sign


def test_a_result_from_the_host_that_held_the_lease_is_accepted(planned):
    cfg, r, camp, job = planned
    lease = JobLease(r, job.job_id, "h1", 30)
    assert lease.acquire()
    mark_leased(r, camp.campaign_id, job.job_id, "h1", 60)  # what run_job does once it holds the lease
    lease.release()  # released before record_job is sent: the durable mark still proves it
    assert planned.refusal(JobResult(job=job, session_id="s", host="h1")) is None


def test_a_result_from_a_host_without_the_lease_is_refused(planned):
    cfg, r, camp, job = planned
    mark_leased(r, camp.campaign_id, job.job_id, "h1", 60)
    why = planned.refusal(JobResult(job=job, session_id="s", host="h2"))
    assert why and "lease was held by h1" in why


def test_a_result_from_another_host_while_the_lease_is_held_is_refused(planned):
    cfg, r, _, job = planned
    lease = JobLease(r, job.job_id, "h1", 30)
    assert lease.acquire()
    try:
        why = planned.refusal(JobResult(job=job, session_id="s", host="h2"))
    finally:
        lease.release()
    assert why and "held by h1" in why


def test_a_result_whose_spec_differs_from_the_plan_by_one_byte_is_refused(planned):
    cfg, r, camp, job = planned
    mark_leased(r, camp.campaign_id, job.job_id, "h1", 60)
    forged = job.model_copy(update={"seed": job.seed + 1})
    why = planned.refusal(JobResult(job=forged, session_id="s", host="h1"))
    assert why and "differs from the saved plan" in why


def test_a_result_for_a_campaign_without_a_saved_plan_is_refused(planned):
    cfg, r, _camp, job = planned
    other = job.model_copy(update={"campaign_id": "made-up"})
    assert "no saved plan" in planned.refusal(JobResult(job=other, session_id="s", host="h1"))


@pytest.mark.parametrize("key", ["PYTHONPATH", "LD_PRELOAD", "BASH_ENV", "SWARMGYM_HOME"])
def test_jobspec_env_outside_the_allowlist_is_refused_and_kept(planned, key):
    cfg, r, _camp, job = planned
    bad = job.model_copy(update={"env": {key: "/tmp/evil", "GOOSE_SWARM_REVIEW": "1"}})
    out = accept.check_run(cfg, r, bad, "h1")
    assert out and out["refused"] and key in out["reason"] and "GOOSE_SWARM_REVIEW" not in out["reason"].split(" not")[0]
    assert any(key in x for x in r.lrange(keys.REFUSED, 0, -1))
    assert list((cfg.runs_dir / "refused").glob("*run_job*.json"))


def test_goose_flags_and_tweaker_knobs_are_allowed(planned):
    cfg, r, _camp, job = planned
    ok = job.model_copy(update={"env": {"GOOSE_SWARM_REVIEW": "1", "GOOSE_LOCAL_CONTEXT_CAP": "8192",
                                        "SWARMGYM_SIM_FORCE": "hang"}})
    assert accept.check_run(cfg, r, ok, "h1") is None
    assert accept.refused_env(ok.model_copy(update={"swarm": "goose"})) == ["SWARMGYM_SIM_FORCE"]


def _wait_refused(r, kind: str, job_id: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in r.lrange(keys.REFUSED, 0, -1):
            rec = json.loads(line)
            if rec["kind"] == kind and rec["job_id"] == job_id:
                return rec
        time.sleep(0.2)
    raise AssertionError(f"no {kind} refusal for {job_id}")


@pytest.mark.slow  # the hostile fleet: real Celery worker processes
def test_forged_record_job_sent_to_the_real_coordinator_is_refused_with_its_run_folder(fleet, redis_server, tmp_path):
    from swarmgym.queue.bundle import encode, pack

    r = redis_server.client()
    cfg = load_config(fleet.home, environ={})
    job = load_campaign(cfg, fleet.campaign_id).jobs[0]
    before = (fleet.home / "ledger" / "sessions.jsonl").read_text()
    forged = JobResult(job=job.model_copy(update={"job_id": job.job_id + "-x"}), session_id="s-forged",
                       host="h1", status="done")
    folder = tmp_path / "s-forged"  # a run folder riding with the forged record
    folder.mkdir()
    (folder / "session.json").write_text("{}")
    bundle = encode(pack(folder, 1 << 20) or b"")
    key = read_key_file(fleet.extra["fleet"].host_key("h1"))  # even signed with a real host key (a stolen one)
    payload = forged.model_dump(mode="json")
    fleet.extra["app"].send_task(keys.RECORD_JOB, args=[payload, bundle, sign(key, "h1", payload, bundle)],
                                 queue=COORDINATOR_QUEUE)
    rec = _wait_refused(r, "record_job", job.job_id + "-x")
    assert "not in the plan" in rec["reason"]
    assert (fleet.home / "ledger" / "sessions.jsonl").read_text() == before
    assert list((fleet.home / "runs" / "refused").glob("*record_job*.json"))
    assert not (fleet.home / "runs" / "s-forged").exists()  # a refused record brings nothing into runs/


@pytest.mark.slow  # the hostile fleet: real Celery worker processes
def test_jobspec_env_injection_sent_to_a_real_host_worker_is_refused(fleet, redis_server, tmp_path):
    r = redis_server.client()
    cfg = load_config(fleet.home, environ={})
    camp = load_campaign(cfg, fleet.campaign_id)
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "sitecustomize.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').close()\n")
    job = camp.jobs[0].model_copy(update={"job_id": camp.jobs[0].job_id + "-inj", "env": {"PYTHONPATH": str(evil)}})
    camp.jobs.append(job)
    save_campaign(cfg, camp)  # even a planned job may not carry it
    fleet.extra["app"].send_task(keys.RUN_JOB, args=[job.model_dump(mode="json")], queue=variant_queue("mlx"))
    rec = _wait_refused(r, "run_job", job.job_id)
    assert "PYTHONPATH" in rec["reason"]
    assert not (tmp_path / "ran").exists()
    assert not list((fleet.home / "apps").rglob(f"*{job.job_id}*"))
