"""The Celery settings every process loads (docs/architecture.md section 9) and the router."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from swarmgym.config import load_config
from swarmgym.core.errors import UsageError
from swarmgym.queue import keys
from swarmgym.queue.app import celery_settings, make_app
from swarmgym.queue.routing import queue_for_job, route_task, worker_name, worker_queues
from swarmgym.trust.secrets import mask_url


def test_settings_are_json_only_late_ack_prefetch_one_and_long_visibility(tmp_path):
    cfg = load_config(tmp_path, environ={"SWARMGYM_QUEUE_VISIBILITY_TIMEOUT": "90000",
                                         "SWARMGYM_QUEUE_RESULT_EXPIRES": "700000"})
    app = make_app(cfg)
    c = app.conf
    assert c.task_serializer == c.result_serializer == "json"
    assert c.accept_content == c.result_accept_content == ["json"]
    assert c.broker_transport_options["visibility_timeout"] == 90000
    assert c.result_backend_transport_options["visibility_timeout"] == 90000
    assert c.visibility_timeout == 90000
    assert c.worker_prefetch_multiplier == 1 and c.worker_disable_prefetch is True
    assert c.task_acks_late and c.task_reject_on_worker_lost
    assert c.result_expires == 700000
    assert c.task_send_sent_event and c.worker_send_task_events and c.broker_connection_retry_on_startup


def test_prefetch_and_early_acks_are_operator_settings_not_a_benchmark_switch(tmp_path):
    cfg = load_config(tmp_path, environ={"SWARMGYM_QUEUE_PREFETCH": "4", "SWARMGYM_QUEUE_ACKS_LATE": "false"})
    c = make_app(cfg).conf
    assert c.worker_prefetch_multiplier == 4 and c.worker_disable_prefetch is False and c.task_acks_late is False


def test_short_visibility_sweeps_unacked_messages_often_but_long_keeps_kombu_defaults(tmp_path):
    short = celery_settings(load_config(tmp_path, environ={"SWARMGYM_QUEUE_VISIBILITY_TIMEOUT": "20"}))
    long = celery_settings(load_config(tmp_path, environ={}))
    assert short["broker_transport_options"]["unacked_restore_interval"] <= 4
    assert "unacked_restore_interval" not in long["broker_transport_options"]


def test_broker_urls_come_from_the_env_and_tls_turns_on_ssl(tmp_path):
    cfg = load_config(tmp_path, environ={"SWARMGYM_BROKER_URL": "rediss://:pw@redis.lan:6380/3",
                                         "SWARMGYM_RESULT_BACKEND": "rediss://:pw@redis.lan:6380/4"})
    s = celery_settings(cfg)
    assert s["broker_url"].endswith("/3") and s["result_backend"].endswith("/4")
    assert s["broker_use_ssl"] and s["redis_backend_use_ssl"]


@pytest.mark.parametrize("url,masked", [
    ("redis://:s3cret@host:6379/0", "redis://:***@host:6379/0"),
    ("rediss://user:s3cret@h:6380/1", "rediss://user:***@h:6380/1"),
    ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
])
def test_passwords_are_masked(url, masked):
    assert mask_url(url) == masked


def test_jobs_route_to_their_variant_or_pinned_host_and_the_rest_to_the_coordinator():
    job = {"job_id": "c-000", "variant": "mlx", "pin_host": None}
    assert route_task(keys.RUN_JOB, [job], {}, {}) == {"queue": "variant.mlx"}
    assert route_task(keys.RUN_JOB, [{**job, "pin_host": "studio"}], {}, {}) == {"queue": "host.studio"}
    assert route_task(keys.RECORD_JOB, [{}], {}, {}) == {"queue": "coordinator"}
    assert route_task(keys.RUN_JOB, [job], {}, {"queue": "x"}) is None  # explicit queue wins
    assert queue_for_job({"variant": "gguf"}) == "variant.gguf"
    assert worker_name("mlx", "studio") == "mlx@studio"
    assert worker_queues("mlx", "studio") == ["variant.mlx", "host.studio"]


def test_a_bad_variant_name_is_a_usage_error():
    with pytest.raises(UsageError, match="--variant"):
        queue_for_job({"variant": "ml x"})


def test_cli_never_prints_the_broker_password(tmp_path):
    (tmp_path / "config.yaml").write_text("queue:\n  broker_url: redis://:hunter2@127.0.0.1:1/0\n")
    p = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(tmp_path), "status", "nope"],
                       capture_output=True, text=True, timeout=60)
    p2 = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(tmp_path), "enqueue"],
                        capture_output=True, text=True, timeout=60)
    assert p2.returncode == 1 and "unreachable" in p2.stderr and "***" in p2.stderr
    assert "hunter2" not in p.stdout + p.stderr + p2.stdout + p2.stderr
    assert "Traceback" not in p.stderr + p2.stderr


def test_a_jobs_first_delivery_is_its_job_id_and_each_re_send_a_fresh_one():
    from swarmgym.queue.routing import delivery_id

    assert delivery_id("c-001") == "c-001"
    again = {delivery_id("c-001", redelivery=True) for _ in range(50)}
    assert len(again) == 50 and all(re.fullmatch(r"c-001~[0-9a-f]{6}", t) for t in again)


def _banner(home, env) -> str:
    """What ``swarmgym worker`` prints until it is connected (then it is stopped)."""
    import os
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "swarmgym", "--home", str(home), "worker", "--variant", "mlx",
                             "--host", "banner", "--pool", "solo"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env={**os.environ, **env})
    out, deadline = [], time.monotonic() + 90
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.append(line)
            if "Connected to" in line or "ready." in line or time.monotonic() > deadline:
                break
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    return "".join(out)


@pytest.mark.redis
def test_a_broker_url_without_a_password_is_shown_without_a_mask(home):
    """kombu prints ``redis://:**@host`` for a URL that has no password; the worker's banner and its
    "Connected to" line show the URL as it is (a password would still be masked: test_passwords_are_masked)."""
    from tests.support.queue import host_key, url

    out = _banner(home, {"SWARMGYM_QUEUE_HOST_KEY_FILE": str(host_key(home, "banner"))})
    plain = url().removeprefix("redis://")
    assert f"transport:   redis://{plain}" in out, out
    assert f"Connected to redis://{plain}" in out or "ready." in out
    assert ":**@" not in out
