"""Fleet CLI against the real Redis, no workers: ids, idempotent enqueue, bad input."""
from __future__ import annotations

import subprocess
import sys

import pytest

from swarmgym.config import load_config
from swarmgym.queue import keys
from swarmgym.suitekit.suite import load_suite

pytestmark = pytest.mark.redis


def run(home, *args, env=None):
    import os

    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), *args], capture_output=True,
                          text=True, timeout=60, env={**os.environ, **(env or {})})


def test_enqueue_prints_the_id_at_once_and_the_same_id_twice_sends_nothing(home, rdb):
    p = run(home, "enqueue", "--tier", "light", "--variant", "gguf", "--campaign-id", "nightly-1")
    assert p.returncode == 0, p.stderr
    n = len(load_suite(load_config(home).suite).specs)  # light: each spec of the home's suite once
    assert p.stdout.strip() == "nightly-1" and f"{n} job(s) -> queue variant.gguf" in p.stderr
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr
    assert rdb.llen("variant.gguf") == n
    again = run(home, "enqueue", "--tier", "light", "--variant", "gguf", "--campaign-id", "nightly-1")
    assert again.returncode == 0 and "already enqueued" in again.stderr
    assert rdb.llen("variant.gguf") == n
    st = run(home, "status", "nightly-1")
    assert f"0/{n} recorded" in st.stdout and "queued" in st.stdout


def test_pinned_jobs_go_to_the_host_queue_and_options_read_env_vars(home, rdb):
    from swarmgym.queue import liveness

    liveness.register_host(rdb, "studio", {"node": "mlx@studio", "variant": "mlx"})  # what its worker does at start
    p = run(home, "enqueue", env={"SWARMGYM_CAMPAIGN_TIER": "smoke", "SWARMGYM_ENQUEUE_PIN_HOST": "studio"})
    assert p.returncode == 0, p.stderr
    assert rdb.llen("host.studio") == 1 and rdb.llen("variant.mlx") == 0


@pytest.mark.parametrize("args,needle", [
    (("enqueue", "--swarm", "gooose"), "--swarm: key swarm.adapter: expected one of command, goose, sim, got 'gooose'"),
    (("enqueue", "--variant", "nosuch"), "--variant 'nosuch': no host profile and no host serves it"),
    (("enqueue", "--pin-host", "studio"), "--pin-host 'studio': no such host online"),
    (("enqueue", "--variant", "gguf", "--require-workers"), "no host online serves it"),
])
def test_preflight_refuses_a_campaign_that_cannot_run_in_one_line_and_sends_nothing(home, rdb, args, needle):
    p = run(home, *args)
    assert p.returncode == 2, p.stdout + p.stderr
    assert needle in p.stderr and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert not [k for k in rdb.keys("*") if k.startswith(("variant.", "host."))]


def test_no_host_online_is_a_warning_and_a_host_with_another_suite_hash_is_named(home, rdb):
    from swarmgym.queue import liveness

    p = run(home, "enqueue", "--variant", "gguf")
    assert p.returncode == 0 and "warning: --variant gguf: no host online serves it" in p.stderr
    suite = load_config(home).suite  # the campaign's suite: the home's
    liveness.register_host(rdb, "box", {"node": "gguf@box", "variant": "gguf", "suites": {suite: "sha256:old"}})
    p = run(home, "enqueue", "--variant", "gguf")
    assert p.returncode == 0 and f"host box: suite {suite} hashes to sha256:old" in p.stderr


def test_enqueue_wait_without_a_coordinator_exits_at_once_with_one_line(home, rdb):
    p = run(home, "enqueue", "--wait")
    assert p.returncode == 1 and "no coordinator is alive" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and rdb.llen("variant.mlx") == 0


@pytest.mark.parametrize("args,needle", [
    (("enqueue", "--variant", "ml x"), "--variant 'ml x'"),
    (("enqueue", "--pin-host", "a/b"), "--pin-host 'a/b'"),
    (("resume", "no-such-campaign"), "no-such-campaign"),
    (("status", "no-such-campaign"), "no-such-campaign"),
])
def test_bad_input_is_one_line_and_exit_2(home, rdb, args, needle):
    p = run(home, *args)
    assert p.returncode == 2, p.stdout + p.stderr
    assert needle in p.stderr and "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_a_job_killed_at_the_hard_limit_is_still_sent_for_recording_as_a_timeout(home, rdb):
    """Celery calls on_failure in the worker's main process when the hard limit kills the pool child."""
    import base64
    import json
    import zlib

    from billiard.exceptions import TimeLimitExceeded

    from swarmgym.campaigns.plan import plan_jobs
    from swarmgym.suitekit.suite import load_suite
    from swarmgym.workers.tasks import run_job_task
    from tests.support.queue import app_for

    cfg = load_config(home)
    job = plan_jobs(load_suite(cfg.suite, cfg.suites_dir), "smoke", "mlx", campaign_id="hard")[0]
    app = app_for(home)
    task = app.tasks[keys.RUN_JOB] if keys.RUN_JOB in app.tasks else run_job_task
    task.on_failure(TimeLimitExceeded(6), "hard-000", [job.model_dump(mode="json")], {}, None)
    (raw,) = rdb.lrange("coordinator", 0, -1)
    msg = json.loads(raw)
    assert msg["headers"]["task"] == keys.RECORD_JOB
    body = base64.b64decode(msg["body"])
    assert msg["headers"]["compression"] == "application/x-gzip"  # results wait in Redis compressed
    result = json.loads(zlib.decompress(body))[0][0]
    assert result["status"] == "timeout" and result["error"]["type"] == "TimeLimitExceeded"
    assert result["job"]["job_id"] == job.job_id
