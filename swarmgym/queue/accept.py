"""The queue accepts only what it sent, from the hosts it knows (docs/security.md).

Two rules, each hooked into its task with one call:

- ``run_job`` refuses a JobSpec whose ``env`` or ``flags`` name a variable outside the allowlist:
  goose's feature flags (``GOOSE_SWARM_*``), the env knobs the tweaker may set, and — for the
  simulator only — its own ``SWARMGYM_SIM_*`` knobs.  Anything else (``PYTHONPATH``,
  ``LD_PRELOAD``, ``BASH_ENV`` …) could run code on the host.
- ``record_job`` accepts a result only if

  1. it is signed by the host it names, with that host's key in the coordinator's keyring
     (:mod:`swarmgym.trust.signing`; the signature covers the result and its run folder);
  2. its job is in a campaign plan (this home's copy, else the one the enqueuer published in Redis,
     :mod:`swarmgym.queue.plans`) and its spec matches the plan byte for byte (sha256 of its
     canonical JSON);
  3. that host leased the job: it holds the lease now, or, when no lease is held, it is among the
     hosts that ever took it (the durable ``leased`` mark, :func:`swarmgym.queue.lease.mark_leased`).
     A job nobody ever leased is refused — unless Redis lost the campaign's keys (its ``epoch`` is
     gone, :func:`swarmgym.queue.counters.intact`): then the lease evidence is gone too, and the
     signed result is accepted on the plan, with a warning, so ``resume`` after a flush loses no
     finished job.  "No evidence" alone never means "flushed".

A refusal is never silent: it is logged as an error, counted in ``swarmgym:refused`` (a Redis list
of one-line reasons) and the refused payload is kept in ``runs/refused/`` for inspection.
"""
from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from typing import Any

import redis

from swarmgym.campaigns.plan import campaign_path
from swarmgym.core.atomic import atomic_write_text
from swarmgym.core.errors import SwarmgymError
from swarmgym.core.flags import ENV_KNOBS as FLAG_KNOBS
from swarmgym.core.flags import FLAG_PREFIXES
from swarmgym.models import JobResult, JobSpec
from swarmgym.queue import counters, keys, plans
from swarmgym.queue.lease import holder, leased_by
from swarmgym.trust import signing
from swarmgym.trust.hostkeys import keyring

log = logging.getLogger(__name__)
SIM_PREFIX = "SWARMGYM_SIM_"


def env_allowed(key: str, swarm: str) -> bool:
    return key.startswith(FLAG_PREFIXES) or key in FLAG_KNOBS or (swarm == "sim" and key.startswith(SIM_PREFIX))


def refused_env(job: JobSpec) -> list[str]:
    """The env/flag names of ``job`` outside the allowlist (empty: the job may run)."""
    return sorted({k for k in (*job.env, *job.flags) if not env_allowed(k, job.swarm)})


def spec_hash(job: JobSpec) -> str:
    canon = json.dumps(job.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode()).hexdigest()


_PLANNED: dict[str, tuple[tuple[int, int], dict[str, str]]] = {}  # cid -> (plan file stamp, job_id -> spec hash)
_PLANNED_LOCK = threading.Lock()


def planned_hashes(cfg: Any, r: Any, cid: str) -> dict[str, str]:
    """job_id -> spec hash of campaign ``cid``'s plan: this home's copy, else Redis's (then kept here).

    Parsed once per plan version (the file's mtime and size), so a record costs O(1), not a parse of
    the whole plan: 10,000 records do not read a 10,000-job plan 10,000 times.
    """
    path = campaign_path(cfg, cid)
    if not path.is_file():
        plans.find(cfg, cid, r)  # raises a one-line error naming both places when it is in neither
    st = path.stat()
    stamp = (st.st_mtime_ns, st.st_size)
    with _PLANNED_LOCK:
        hit = _PLANNED.get(cid)
        if hit and hit[0] == stamp:
            return hit[1]
    hashes = {j.job_id: spec_hash(j) for j in plans.find(cfg, cid, r).jobs}
    with _PLANNED_LOCK:
        if len(_PLANNED) > 64:
            _PLANNED.clear()
        _PLANNED[cid] = (stamp, hashes)
    return hashes


def lease_refusal(r: Any, res: JobResult) -> str | None:
    """Why the lease evidence says ``res.host`` did not run this job (None: it did, or Redis lost the
    evidence).  Costs O(1) per record: this job's lease and mark only."""
    job = res.job
    current = holder(r, job.job_id)
    if current:
        held = current.partition("|")[0]
        return None if held == res.host else (
            f"job {job.job_id!r}: result from host {res.host!r}, but the lease was held by {held}")
    hosts = leased_by(r, job.campaign_id, job.job_id)
    if hosts:
        return None if res.host in hosts else (
            f"job {job.job_id!r}: result from host {res.host!r}, but the lease was held by {', '.join(hosts)}")
    if counters.intact(r, job.campaign_id):
        return f"job {job.job_id!r} was never leased by any host: a result for it cannot come from a run"
    log.warning("record_job %s from %s: Redis lost campaign %s's keys (no epoch), so its lease evidence too; "
                "accepted on the signed result and the plan", job.job_id, res.host, job.campaign_id)
    return None


def record_refusal(cfg: Any, r: Any, res: JobResult, payload: dict | None = None, bundle: str | None = None,
                   signature: Any = None) -> str | None:
    """Why the coordinator must not record ``res`` (None: it may).  ``payload`` is the result exactly
    as received (what the host signed; default: ``res`` itself)."""
    job = res.job
    try:
        keys = keyring(cfg)
    except SwarmgymError as e:
        return f"no keyring to check the signature: {e}"
    bad = signing.refusal(keys, payload if payload is not None else res.model_dump(mode="json"), bundle, signature)
    if bad:
        return bad
    try:
        planned = planned_hashes(cfg, r, job.campaign_id)
    except (SwarmgymError, OSError):
        return f"no saved plan for campaign {job.campaign_id!r} (neither in this home nor in Redis)"
    if job.job_id not in planned:
        return f"job {job.job_id!r} is not in the plan of {job.campaign_id}"
    if planned[job.job_id] != spec_hash(job):
        return f"job {job.job_id!r}: spec differs from the saved plan (sha256 {spec_hash(job)[:12]})"
    return lease_refusal(r, res)


def keep_refused(cfg: Any, r: Any, kind: str, job_id: str, reason: str, payload: dict) -> dict:
    """Log, count and keep a refused message; returns the task's (visible) answer."""
    log.error("refused %s for %s: %s", kind, job_id, reason)
    try:  # the payload first: whoever sees the refusal counted can read it at once
        folder = cfg.runs_dir / "refused"
        folder.mkdir(parents=True, exist_ok=True)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in job_id)[:120]
        atomic_write_text(folder / f"{safe}-{kind}-{time.time_ns()}.json",
                          json.dumps({"reason": reason, "payload": payload}, indent=1, default=str))
    except OSError as e:
        log.warning("refused %s for %s not kept on disk: %s", kind, job_id, e)
    line = json.dumps({"ts": time.time(), "kind": kind, "job_id": job_id, "reason": reason})
    try:
        r.lpush(keys.REFUSED, line)
        r.ltrim(keys.REFUSED, 0, 999)
    except redis.RedisError as e:  # the log line and the file still say it
        log.warning("refusal of %s not counted in Redis: %s", job_id, e)
    return {"refused": True, "kind": kind, "job_id": job_id, "reason": reason}


def check_record(cfg: Any, r: Any, res: JobResult, payload: dict, bundle: str | None = None,
                 signature: Any = None) -> dict | None:
    """The ``record_job`` hook: None to record, else the refusal (already logged and kept)."""
    reason = record_refusal(cfg, r, res, payload, bundle, signature)
    if reason is None:
        return None
    kept = {**payload, "_signature": signature} if signature else payload
    return keep_refused(cfg, r, "record_job", res.job.job_id, reason, kept)


def check_run(cfg: Any, r: Any, job: JobSpec, host: str) -> dict | None:
    """The ``run_job`` hook: None to run, else the refusal (already logged and kept)."""
    bad = refused_env(job)
    if not bad:
        return None
    reason = (f"env {', '.join(bad)} not allowed (only GOOSE_SWARM_*, {', '.join(FLAG_KNOBS)}"
              + (f", {SIM_PREFIX}*" if job.swarm == "sim" else "") + f"); not run on {host}")
    return keep_refused(cfg, r, "run_job", job.job_id, reason, job.model_dump(mode="json"))
