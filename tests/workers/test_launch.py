"""The Celery command line ``swarmgym worker`` runs: a variant host and the coordinator (no Celery started)."""
from __future__ import annotations

import pytest

from swarmgym.workers.launch import coordinator_worker, host_worker, worker_argv, worker_env

TAIL = ["-E", "--loglevel", "INFO", "--without-gossip", "--without-mingle"]


def test_a_variant_host_consumes_its_variant_and_host_queues_one_prefork_job_at_a_time():
    argv = worker_argv(host_worker("mlx", "studio"), python="py")
    assert argv == ["py", "-m", "celery", "-A", "swarmgym.queue.app", "worker", "-n", "mlx@studio",
                    "-Q", "variant.mlx,host.studio", "-c", "1", "-P", "prefork", *TAIL]


def test_a_host_keeps_the_pool_and_concurrency_it_is_given():
    argv = worker_argv(host_worker("gguf", "box-2", pool="solo", concurrency=3), loglevel="DEBUG", python="py")
    assert argv[argv.index("-c") + 1] == "3" and argv[argv.index("-P") + 1] == "solo"
    assert argv[argv.index("--loglevel") + 1] == "DEBUG"


def test_the_coordinator_consumes_its_queue_and_the_clis_questions_with_a_thread_pool_of_the_configured_size():
    argv = worker_argv(coordinator_worker("studio", threads=8), python="py")
    assert argv == ["py", "-m", "celery", "-A", "swarmgym.queue.app", "worker", "-n", "coordinator@studio",
                    "-Q", "coordinator,coordinator.ask", "-c", "8", "-P", "threads", *TAIL]


def test_a_coordinator_on_another_pool_runs_one_task_at_a_time():
    w = coordinator_worker("studio", pool="solo", threads=8)
    assert (w.pool, w.concurrency) == ("solo", 1)


@pytest.mark.parametrize("bad", ["", "a b", "../x", "-n"])
def test_a_bad_name_never_reaches_the_command_line(bad):
    from swarmgym.core.errors import SwarmgymError

    with pytest.raises(SwarmgymError):
        host_worker("mlx", bad)
    with pytest.raises(SwarmgymError):
        coordinator_worker(bad)


def test_the_worker_env_names_its_home_and_host_and_the_isolation_only_when_chosen():
    assert worker_env({"PATH": "/bin"}, home="/h", host="studio") == {
        "PATH": "/bin", "SWARMGYM_HOME": "/h", "SWARMGYM_WORKER_HOST": "studio"}
    assert worker_env({}, home="/h", host="s", isolation="bwrap")["SWARMGYM_SANDBOX_BACKEND"] == "bwrap"
