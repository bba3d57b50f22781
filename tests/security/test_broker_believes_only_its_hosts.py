"""The attack of issue #20 on a real coordinator and host: someone who can talk to the broker (here:
who has its password) sends ``record_job`` with passing verdicts for every planned job before any host
has run one.  None is recorded, the campaign does not finalize on them, and the host's real (failing)
results are recorded when it runs the jobs.

Real Celery worker processes (a coordinator and host ``h1``) on a throwaway password-protected Redis,
real tiny jobs (the command adapter, a one-check suite).
"""
from __future__ import annotations

import base64
import json
import secrets
import subprocess
import sys
import time
import uuid

import pytest
import yaml

from swarmgym.campaigns.plan import load_campaign
from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.models import JobResult, Verdict
from swarmgym.queue import counters, keys
from swarmgym.queue.app import make_app
from swarmgym.queue.routing import COORDINATOR_QUEUE
from swarmgym.testing.localfleet import LocalFleet
from swarmgym.trust.hostkeys import read_key_file
from swarmgym.trust.signing import sign
from tests.support.queue import tiny_suite

pytestmark = [pytest.mark.slow, pytest.mark.redis]
DB = 7  # db 0 belongs to the session's hostile fleet


def wait_for(pred, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if v := pred():
            return v
        time.sleep(0.3)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def raw_record_job(r, args: list) -> None:
    """A ``record_job`` pushed straight into the coordinator's Redis list, as ``redis-cli LPUSH`` would:
    no swarmgym, no Celery on the attacker's side."""
    tid = str(uuid.uuid4())
    body = base64.b64encode(json.dumps([args, {}, {"callbacks": None, "errbacks": None, "chain": None,
                                                   "chord": None}]).encode()).decode()
    msg = {"body": body, "content-encoding": "utf-8", "content-type": "application/json",
           "headers": {"lang": "py", "task": keys.RECORD_JOB, "id": tid, "root_id": tid, "parent_id": None,
                       "group": None, "retries": 0, "eta": None, "expires": None, "argsrepr": "", "kwargsrepr": ""},
           "properties": {"correlation_id": tid, "reply_to": "", "delivery_mode": 2, "priority": 0,
                          "delivery_info": {"exchange": "", "routing_key": COORDINATOR_QUEUE},
                          "body_encoding": "base64", "delivery_tag": str(uuid.uuid4())}}
    r.lpush(COORDINATOR_QUEUE, json.dumps(msg))


def refusals(r, cid: str) -> list[dict]:
    return [x for x in map(json.loads, r.lrange(keys.REFUSED, 0, -1)) if cid in x["job_id"]]


def test_forged_passing_results_for_every_planned_job_are_refused_and_the_real_ones_recorded(
        tmp_path, tmp_path_factory, redis_server):
    r = redis_server.client(db=DB)
    r.flushdb()
    url = f"redis://:{redis_server.password}@127.0.0.1:{redis_server.port}/{DB}"
    home, suites = tmp_path / "home", tmp_path / "suites"
    (suites / "tiny-v1").mkdir(parents=True)
    home.mkdir()
    (suites / "tiny-v1" / "suite.yaml").write_text(yaml.safe_dump(tiny_suite(3)))
    (home / "config.yaml").write_text(yaml.safe_dump({
        "suites_dir": str(suites), "suite": "tiny-v1",
        "swarm": {"adapter": "command", "command": ["sh", "-c", "true", "{prompt}"], "timeout": 60},  # builds nothing
        "queue": {"visibility_timeout": 600, "lease_ttl": 4, "reconcile_secs": 3600, "lost_grace": 3600}}))
    env = {"SWARMGYM_BROKER_URL": url, "SWARMGYM_RESULT_BACKEND": url}
    fleet = LocalFleet(home, env, die_with_parent=True, keys=tmp_path_factory.mktemp("keys"))
    try:
        cfg = load_config(home, environ={**env, "SWARMGYM_QUEUE_KEYRING_FILE": str(fleet.keyring)})
        app = make_app(cfg)
        h1_key, h2_key = read_key_file(fleet.host_key("h1")), read_key_file(fleet.host_key("h2"))  # both trusted
        fleet.wait_ready(app, [fleet.coordinator()])
        enq = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "enqueue", "--tier", "light",
                              "--variant", "mlx", "--swarm", "command"], env={**fleet.env}, capture_output=True,
                             text=True, timeout=120)
        assert enq.returncode == 0, enq.stderr
        cid = enq.stdout.split()[0]
        jobs = load_campaign(cfg, cid).jobs
        assert len(jobs) == 3

        def forged(job, host="h1") -> dict:
            return JobResult(job=job, session_id=f"s-forged-{job.job_id}", host=host, status="done",
                             verdict=Verdict(overall="pass", functional=True)).model_dump(mode="json")

        replay = sign(h1_key, "h1", forged(jobs[0]))  # a genuine h1 signature, made for job 0
        sent = 0
        for i, job in enumerate(jobs):
            raw_record_job(r, [forged(job), None])                                          # no signature at all
            app.send_task(keys.RECORD_JOB, args=[forged(job), None, sign(secrets.token_bytes(32), "h1", forged(job))],
                          queue=COORDINATOR_QUEUE)                                          # a key nobody trusts
            app.send_task(keys.RECORD_JOB, args=[forged(job), None, sign(h2_key, "h1", forged(job))],
                          queue=COORDINATOR_QUEUE)                                          # another host's key
            app.send_task(keys.RECORD_JOB, args=[forged(job, "h2"), None, sign(h2_key, "h2", forged(job, "h2"))],
                          queue=COORDINATOR_QUEUE)                                          # a stolen key: never leased
            sent += 4
            if i:
                app.send_task(keys.RECORD_JOB, args=[forged(job), None, replay], queue=COORDINATOR_QUEUE)
                sent += 1                                                                   # replayed from job 0
        wait_for(lambda: len(refusals(r, cid)) >= sent, 60, f"{sent} refusals")
        got = refusals(r, cid)
        reasons = " | ".join(x["reason"] for x in got)
        assert len(got) == sent
        assert reasons.count("unsigned") == 3 and reasons.count("never leased") == 3
        assert reasons.count("bad signature") == 3 + 3 + 2
        assert len(list((home / "runs" / "refused").glob("*record_job*.json"))) == sent
        ledger = Ledger(home / "ledger")
        assert ledger.records(campaign_id=cid) == []
        assert counters.snapshot(r, cid)["recorded"] == 0 and not ledger.has_job(f"campaign:{cid}")

        fleet.wait_ready(app, [fleet.worker("mlx", "h1")])  # the real host runs the jobs: nothing is built
        wait_for(lambda: ledger.has_job(f"campaign:{cid}"), 180, "the campaign record")
        recs = ledger.records(kind="session", campaign_id=cid)
        assert sorted(x.job_id for x in recs) == sorted(j.job_id for j in jobs)
        assert {x.host for x in recs} == {"h1"} and {x.overall for x in recs} == {"fail"}
        assert not any(x.functional for x in recs)
        assert not any(x.session_id.startswith("s-forged") for x in recs)
        assert len(refusals(r, cid)) == sent  # the real results were not refused
    finally:
        fleet.stop_all()
        r.flushdb()
