"""Queue test helpers: the session's throwaway Redis, a queue home's config, fleet checks, tiny jobs.

The session's ``redis-server`` is started by the ``redis_server`` fixture (``tests/conftest.py``), which
registers it here so :func:`url` and :func:`client` reach it; a test that needs a server of its own takes
the ``own_redis`` fixture and passes its URLs to :func:`write_config`.
"""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest
import redis
import yaml

from swarmgym.config import load_config
from swarmgym.queue import keys

REPO = Path(__file__).resolve().parents[2]
BROKER_DB, BACKEND_DB, SPARE_DB = 0, 1, 2
SERVERS: list = []  # the session's LocalRedis, set by the ``redis_server`` fixture
SIM_ENV = {"SWARMGYM_SIM_TIME_SCALE": "0.002"}


def url(db: int = BROKER_DB) -> str:
    if not SERVERS:
        raise RuntimeError("the redis_server fixture is not active")
    return SERVERS[0].url(db)


def start_redis():
    """A throwaway redis-server (free port, no persistence); under ``CI=true`` a missing one fails, never skips."""
    from swarmgym.core.errors import QueueError
    from swarmgym.testing.localredis import LocalRedis

    try:
        return LocalRedis()
    except QueueError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(str(e))
        pytest.skip(str(e))


def client(db: int) -> redis.Redis:
    return redis.Redis.from_url(url(db), decode_responses=True, socket_connect_timeout=2)


def write_config(home, **queue) -> None:
    """``home/config.yaml`` for a queue test: the session's Redis (or ``broker_url=``/``result_backend=``),
    short leases and limits; ``swarm_timeout=`` sets ``swarm.timeout``, ``extra=`` adds top-level keys.  The
    suite is bench-v2 (three specs: the fleet tests' campaigns are sized for it) unless ``extra`` names one."""
    q = {"broker_url": queue.get("broker_url") or url(BROKER_DB),
         "result_backend": queue.get("result_backend") or url(BACKEND_DB), "visibility_timeout": 600,
         "lease_ttl": 4, "sample_hz": 4, "soft_time_limit": 300, "time_limit": 360, "lost_grace": 5,
         "schedule_grace": 1800, "reconcile_secs": 5}
    q.setdefault("keyring_file", str(keys_dir(home) / "keyring"))  # the coordinator's, outside the home
    q.update(queue)
    swarm = {"timeout": q.pop("swarm_timeout", 120)}
    extra = q.pop("extra", {})
    (home / "config.yaml").write_text(yaml.safe_dump({"suite": "bench-v2", "queue": q, "swarm": swarm, **extra}))


def keys_dir(home) -> Path:
    """Where a queue home's host keys and keyring live: beside the home, never inside it."""
    return Path(home).parent / f"{Path(home).name}-keys"


def host_key(home, host: str) -> Path:
    """``host``'s key file for ``home``'s fleet, created and trusted by its keyring on first use (what an
    operator does once per host with ``swarmgym hosts key new`` / ``add``)."""
    from swarmgym.trust.hostkeys import new_key_file, trust

    path = keys_dir(home) / f"{host}.key"
    if not path.exists():
        trust(keys_dir(home) / "keyring", host, new_key_file(path, host))
    return path


def send_as_host(app, fleet, result: dict, bundle: str | None = None) -> None:
    """What a host's ``run_job`` does at its end, for a test that plays the host: the job's durable
    lease mark (the host took its lease), then ``record_job`` signed with the host's key."""
    from swarmgym.queue.lease import mark_leased
    from swarmgym.queue.redis_util import for_config
    from swarmgym.trust.hostkeys import read_key_file
    from swarmgym.trust.signing import sign

    host, job = result["host"], result["job"]
    mark_leased(for_config(load_config(fleet.home)), job["campaign_id"], job["job_id"], host, 3600)
    sig = sign(read_key_file(fleet.host_key(host)), host, result, bundle)
    app.send_task(keys.RECORD_JOB, args=[result, bundle, sig], queue="coordinator", ignore_result=True)


def app_for(home):
    from swarmgym.queue.app import make_app

    return make_app(load_config(home))


def wait_until(pred, timeout: float, interval: float = 0.2, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def cli(home, *args, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    """``swarmgym --home HOME ARGS`` as a user runs it; with ``check`` it must exit 0."""
    p = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), *args], capture_output=True,
                       text=True, timeout=timeout)
    if check:
        assert p.returncode == 0, p.stderr + p.stdout
    return p


def documented_patterns() -> list[str]:
    """The key patterns of docs/redis-keys.md's table (first column)."""
    out = []
    for line in (REPO / "docs" / "redis-keys.md").read_text().splitlines():
        if line.startswith("| `"):
            out += re.findall(r"`([^`]+)`", line.split("|")[1])
    return out


def plan(home, cid: str, n: int, tier: str = "high"):
    """A saved campaign ``cid`` of ``n`` jobs (the suite's jobs repeated), published and its counters planned
    in Redis (as ``enqueue`` does, without sending a job)."""
    from swarmgym.campaigns.plan import Campaign, plan_jobs, save_campaign
    from swarmgym.queue import counters, plans, store
    from swarmgym.queue.redis_util import for_config
    from swarmgym.suitekit.suite import load_suite

    cfg = load_config(home)
    s = load_suite(cfg.suite, cfg.suites_dir)
    base = plan_jobs(s, tier, "mlx", campaign_id=cid)
    jobs = [base[i % len(base)].model_copy(update={"job_id": f"{cid}-{i:05d}", "seq": i}) for i in range(n)]
    camp = Campaign(campaign_id=cid, mode="queue", tier=tier, variant="mlx", suite=s.name, suite_hash=s.hash,
                    jobs=jobs)
    save_campaign(cfg, camp)
    r = for_config(cfg)
    plans.publish(r, camp, 3600)
    store.ensure_redis(r, camp)
    counters.plan_jobs(r, cid, [(j.job_id, j.job_id) for j in jobs], ttl=3600)
    return camp


def result_for(job, host="h1") -> dict:
    """An ``error`` JobResult of ``job`` from ``host``, as a host sends it to ``record_job``."""
    from swarmgym.models import JobResult

    now = time.time()
    return JobResult(job=job, session_id=f"s-{job.job_id}", host=host, status="error", started=now - 1,
                     finished=now).model_dump(mode="json")


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def procfile_command(name: str) -> str:
    """The command line of process ``name`` in the repo's Procfile."""
    for line in (REPO / "Procfile").read_text().splitlines():
        if line.startswith(f"{name}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no {name} in Procfile")


def jsonl_job_ids(home) -> Counter:
    """How many lines of ``sessions.jsonl`` each job id has (exactly-once checks)."""
    path = home / "ledger" / "sessions.jsonl"
    if not path.exists():
        return Counter()
    return Counter(json.loads(line)["job_id"] for line in path.read_text().splitlines() if line.strip())


def finalized(home, cid):
    """A predicate: the campaign record of ``cid`` is in ``home``'s ledger."""
    from swarmgym.ledger import Ledger

    return lambda: Ledger(home / "ledger").has_job(f"campaign:{cid}")


def sims_under(home) -> list[psutil.Process]:
    """Live simulator processes whose workspace is under ``home`` (to prove nothing was orphaned)."""
    from swarmgym.testing.localfleet import swarm_processes

    out = []
    for p in swarm_processes():
        try:
            if str(p.cwd()).startswith(str(home)):
                out.append(p)
        except psutil.Error:
            continue
    return out


def send_custom(home, variant, jobs_env: list[dict], cid: str, tier: str = "light",
                pin_host: str | None = None) -> list[str]:
    """Enqueue a campaign of the home's swarm adapter whose jobs carry extra swarm env (e.g. SWARMGYM_SIM_FORCE=hang),
    on ``pin_host``'s own queue if given."""
    from swarmgym.campaigns.plan import Campaign, plan_jobs, save_campaign
    from swarmgym.queue import dispatch, store
    from swarmgym.queue.redis_util import for_config
    from swarmgym.suitekit.suite import load_suite

    cfg = load_config(home)
    s = load_suite(cfg.suite, cfg.suites_dir)
    jobs = plan_jobs(s, tier, variant, campaign_id=cid, swarm=cfg.swarm.adapter, pin_host=pin_host)[: len(jobs_env)]
    jobs = [j.model_copy(update={"env": e}) for j, e in zip(jobs, jobs_env)]
    camp = Campaign(campaign_id=cid, mode="queue", tier=tier, variant=variant, suite=s.name, suite_hash=s.hash,
                    jobs=jobs)
    save_campaign(cfg, camp)
    store.ensure_redis(for_config(cfg), camp)
    dispatch.send_jobs(app_for(home), cfg, cid, jobs, fresh=True)
    return [j.job_id for j in jobs]


def tiny_suite(specs: int = 1) -> dict:
    """A suite of ``specs`` one-file apps, one check each (``tiny-v1``'s first spec is ``touch``)."""
    names = ["touch", "touch-b", "touch-c"][:specs]
    return {"name": "tiny-v1", "description": "one file, one check", "specs": [{
        "id": n, "app_slug": n.replace("-", "") + "app", "language": "shell", "archetype": "file",
        "prompt": f"write out.txt ({n})" if i else "write out.txt", "hard_prompt": "write out.txt",
        "checks": [{"name": "out_exists", "kind": "file_exists", "path": "out.txt"}]} for i, n in enumerate(names)]}


TINY_SUITE = tiny_suite(1)


def tiny_settings(home, command: str = "echo ok > out.txt", specs: int = 1, timeout: float = 60) -> dict:
    """Writes the suite ``tiny-v1`` (``specs`` one-file, one-check specs; light is one job per spec, medium at
    least 15 jobs) beside ``home`` and returns the config keys that select it and the ``command`` adapter
    running ``command`` (a shell line) in the workspace: real but tiny jobs."""
    suites = home.parent / "suites"
    (suites / "tiny-v1").mkdir(parents=True, exist_ok=True)
    (suites / "tiny-v1" / "suite.yaml").write_text(yaml.safe_dump(tiny_suite(specs)))
    return {"suites_dir": str(suites), "suite": "tiny-v1",
            "swarm": {"adapter": "command", "command": ["sh", "-c", command, "{prompt}"], "timeout": timeout}}


def tiny_jobs_home(home, command: str = "echo ok > out.txt", specs: int = 1, **queue) -> None:
    """A queue home (:func:`write_config`, ``queue`` settings as there) whose jobs are tiny (:func:`tiny_settings`)."""
    extra = {**queue.pop("extra", {}),
             **tiny_settings(home, command, specs, timeout=queue.pop("swarm_timeout", 60))}
    write_config(home, extra=extra, **queue)


def tiny_bench_home(home, command: str = "echo ok > out.txt", specs: int = 1) -> None:
    """A home for ``swarmgym bench`` (no queue) whose jobs are tiny (:func:`tiny_settings`)."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(yaml.safe_dump(tiny_settings(home, command, specs)))
