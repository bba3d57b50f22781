"""Campaign progress as counters: O(1) per record, O(1) for ``status`` (issue #16).

Redis keys of one campaign (owner: this module; names: :mod:`swarmgym.queue.keys`; see docs/redis-keys.md):

``swarmgym:campaign:<cid>``         hash: ``planned recorded failed stale running requeued status``
                                    ``variant tier created last_ts``, ``o:<overall>`` counts
                                    (+ ``finalized_at overall findings``); after
                                    finalize it is the campaign's whole footprint: a summary that
                                    expires after ``queue.summary_ttl``
``swarmgym:campaign:<cid>:jobs``    hash job_id -> compact JSON ``{"s": queued|running|done, ...}``;
                                    deleted at finalize (TTL ``queue.result_expires`` as a backstop)
``swarmgym:campaign:<cid>:recent``  list of the last :data:`RECENT` changes (JSON), newest first;
                                    deleted at finalize
``swarmgym:campaign:<cid>:running`` hash job_id -> compact JSON ``{"h": host, "ts": since}`` of the jobs
                                    running now (one entry per busy host slot), so ``status`` names the
                                    host of every running job in constant time; deleted at finalize
``swarmgym:campaign:<cid>:finalizing``  the finalize claim (``SET NX EX``), so one process finalizes

The campaign hash's ``epoch`` field is set when the campaign is opened and never by a rebuild: its
absence says Redis lost the campaign's keys at some point (:func:`intact`).

A job counts as recorded once, whatever the number of deliveries: :data:`_RECORD` flips its state to
``done`` and increments ``recorded`` only if it was not done already, and only for a planned job.
"""
from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable
from typing import Any

from swarmgym.queue import keys

RECENT = 20
COUNTERS = ("planned", "recorded", "failed", "stale", "running", "requeued")
FAILED = ("error", "infra", "fail")   # overall values counted as failed (needs a look in `status`)


EPOCH = "epoch"  # set when the campaign is opened, never by a rebuild: its absence means Redis lost the campaign


def intact(r, cid: str) -> bool:
    """Has Redis held this campaign's keys since it was opened (no flush, no restart without
    persistence)?  The ``epoch`` field is written by :func:`open_campaign` only; :func:`rebuild`
    (after a loss) leaves it out, so per-job evidence Redis once held may be gone."""
    return bool(r.hexists(keys.campaign(cid), EPOCH))


def keys_of(cid: str) -> list[str]:
    return [*_script_keys(cid), keys.campaign_finalizing(cid)]


def _script_keys(cid: str) -> list[str]:
    """KEYS of the :data:`_RECORD` and :data:`_MOVE` scripts: hash, jobs, recent, running."""
    return [keys.campaign(cid), keys.campaign_jobs(cid), keys.campaign_recent(cid), keys.campaign_running(cid)]


# KEYS: hash, jobs, recent, running   ARGV: job_id, state json, failed 0/1, change json, RECENT, now, overall
# -> {code, recorded, planned}: 1 newly recorded, 0 already recorded, -1 finalized, -2 not planned,
#    -3 no counters (Redis lost them: rebuild from the plan and the ledger)
_RECORD = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {-3, 0, 0} end
local planned = tonumber(redis.call('HGET', KEYS[1], 'planned') or '0')
if redis.call('HGET', KEYS[1], 'status') == 'finalized' then return {-1, 0, planned} end
local cur = redis.call('HGET', KEYS[2], ARGV[1])
if not cur then return {-2, tonumber(redis.call('HGET', KEYS[1], 'recorded') or '0'), planned} end
local st = cjson.decode(cur)['s']
if st == 'done' then return {0, tonumber(redis.call('HGET', KEYS[1], 'recorded') or '0'), planned} end
if st == 'running' then
  redis.call('HINCRBY', KEYS[1], 'running', -1)
  redis.call('HDEL', KEYS[4], ARGV[1])
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local n = redis.call('HINCRBY', KEYS[1], 'recorded', 1)
if ARGV[3] == '1' then redis.call('HINCRBY', KEYS[1], 'failed', 1) end
redis.call('HINCRBY', KEYS[1], 'o:' .. ARGV[7], 1)
redis.call('HSET', KEYS[1], 'last_ts', ARGV[6])
redis.call('LPUSH', KEYS[3], ARGV[4])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[5]) - 1)
return {1, n, planned}
"""

# KEYS: hash, jobs, recent, running   ARGV: job_id, new state json, new state, change json, RECENT, counter,
#                                          running entry json
# A state change that is not a record (running, queued again, stale); never undoes ``done``.
_MOVE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -3 end
if redis.call('HGET', KEYS[1], 'status') == 'finalized' then return -1 end
local cur = redis.call('HGET', KEYS[2], ARGV[1])
local st = cur and cjson.decode(cur)['s'] or nil
if st == 'done' then return 0 end
if st == 'running' and ARGV[3] ~= 'running' then
  redis.call('HINCRBY', KEYS[1], 'running', -1)
  redis.call('HDEL', KEYS[4], ARGV[1])
end
if ARGV[3] == 'running' and st ~= 'running' then redis.call('HINCRBY', KEYS[1], 'running', 1) end
if ARGV[3] == 'running' then redis.call('HSET', KEYS[4], ARGV[1], ARGV[7]) end
if ARGV[6] ~= '' then redis.call('HINCRBY', KEYS[1], ARGV[6], 1) end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('LPUSH', KEYS[3], ARGV[4])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[5]) - 1)
return 1
"""


def _state(state: str, **info: Any) -> str:
    return json.dumps({"s": state, "ts": round(time.time(), 3), **{k: v for k, v in info.items() if v is not None}},
                      separators=(",", ":"))


def _change(job_id: str, state: str, **info: Any) -> str:
    return json.dumps({"job": job_id, "s": state, "ts": round(time.time(), 3),
                       **{k: v for k, v in info.items() if v is not None}}, separators=(",", ":"))


#: the compact names a job state uses (:func:`_state`) and the names a change is read with
SHORT = {"h": "host", "o": "overall", "t": "task_id"}


def _readable(change: dict) -> dict:
    """A change with full field names: a host's ``running`` change is written with the job state's
    compact ``h``; ``status`` reads ``host`` (the host column showed ``-`` for every running job)."""
    return {SHORT.get(k, k): v for k, v in change.items()}


def open_campaign(r, cid: str, *, planned: int, variant: str, tier: str, created: float, status: str = "running",
                  ttl: int | None = None, epoch: bool = True) -> None:
    """Create (or refresh the descriptive fields of) the campaign hash; counters start at 0 once.
    A hash created here gets its ``epoch`` (unless ``epoch=False``: not an opening); one refreshed
    here keeps whatever it had (a rebuilt one stays without)."""
    fresh = epoch and not r.exists(keys.campaign(cid))
    pipe = r.pipeline(transaction=False)
    pipe.hset(keys.campaign(cid), mapping={"planned": planned, "jobs": planned, "variant": variant, "tier": tier,
                                      "created": created, "status": status})
    for c in COUNTERS[1:]:
        pipe.hsetnx(keys.campaign(cid), c, 0)
    if fresh:
        pipe.hsetnx(keys.campaign(cid), EPOCH, round(time.time(), 3))
    pipe.sadd(keys.CAMPAIGNS, cid)
    if ttl:
        pipe.expire(keys.campaign(cid), ttl)
    pipe.execute()


def plan_jobs(r, cid: str, job_ids: Iterable[tuple[str, str]], *, ttl: int, batch: int = 2000,
              requeued: bool = False) -> int:
    """Write ``(job_id, task_id)`` as queued, pipelined in batches, never over a job already done."""
    n = 0
    pipe = r.pipeline(transaction=False)
    for jid, tid in job_ids:
        if requeued:
            pipe.evalsha(_sha(r, _MOVE), 4, *_script_keys(cid), jid,
                         _state("queued", t=tid), "queued", _change(jid, "requeued"), RECENT, "requeued", "")
        else:
            pipe.hsetnx(keys.campaign_jobs(cid), jid, _state("queued", t=tid))
        n += 1
        if n % batch == 0:
            pipe.execute()
    pipe.expire(keys.campaign_jobs(cid), ttl)
    pipe.execute()
    return n


_SHAS: dict[tuple[int, str], str] = {}


def _sha(r, script: str) -> str:
    key = (id(r), script)
    if key not in _SHAS:
        _SHAS[key] = r.script_load(script)
    return _SHAS[key]


def _eval(r, script: str, keys: list[str], args: list[Any]):
    from redis.exceptions import NoScriptError

    try:
        return r.evalsha(_sha(r, script), len(keys), *keys, *args)
    except NoScriptError:  # Redis restarted: scripts are gone
        _SHAS.pop((id(r), script), None)
        return r.evalsha(_sha(r, script), len(keys), *keys, *args)


def record(r, cid: str, job_id: str, *, host: str, overall: str) -> tuple[int, int, int]:
    """Count ``job_id`` as recorded (idempotent). Returns (code, recorded, planned); see :data:`_RECORD`."""
    code, n, planned = _eval(r, _RECORD, _script_keys(cid),
                             [job_id, _state("done", h=host, o=overall), int(overall in FAILED),
                              _change(job_id, "done", host=host, overall=overall), RECENT, round(time.time(), 3),
                              overall or "none"])
    return int(code), int(n), int(planned)


def move(r, cid: str, job_id: str, state: str, *, counter: str = "", **info: Any) -> int:
    """Set a job's state (``running`` / ``queued`` / ``stale``), bumping ``counter`` if given; never undoes done."""
    running = json.dumps({"h": info.get("h"), "ts": round(time.time(), 3)}, separators=(",", ":"))
    return int(_eval(r, _MOVE, _script_keys(cid),
                     [job_id, _state(state, **info), state, _change(job_id, state, **info), RECENT, counter,
                      running]))


def job_state(r, cid: str, job_id: str) -> dict:
    raw = r.hget(keys.campaign_jobs(cid), job_id)
    if not raw:
        return {}
    try:
        d = json.loads(raw)
    except ValueError:
        return {}
    return {"state": d.get("s") or d.get("state"), "host": d.get("h"), "task_id": d.get("t"), "ts": d.get("ts"),
            "overall": d.get("o")}


def job_states(r, cid: str) -> dict[str, dict]:
    """Every job's state (linear: for ``--all``, cancel and lost-job scans, never for a status tick)."""
    out = {}
    for jid, raw in (r.hgetall(keys.campaign_jobs(cid)) or {}).items():
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        out[jid] = {"state": d.get("s"), "host": d.get("h"), "task_id": d.get("t"), "ts": d.get("ts", 0),
                    "overall": d.get("o")}
    return out


def snapshot(r, cid: str, recent: int = 10) -> dict | None:
    """What ``status``/``--watch`` show, in one round trip: the counters, the last changes and the
    jobs running now with their hosts (``running_jobs``: job_id -> {host, since})."""
    pipe = r.pipeline(transaction=False)
    pipe.hgetall(keys.campaign(cid))
    pipe.lrange(keys.campaign_recent(cid), 0, max(0, recent - 1))
    pipe.hgetall(keys.campaign_running(cid))
    h, changes, running = pipe.execute()
    if not h:
        return None
    out: dict[str, Any] = {k: v for k, v in h.items() if k not in COUNTERS and not k.startswith("o:")}
    for c in COUNTERS:
        out[c] = int(h.get(c) or 0)
    out["outcomes"] = {k[2:]: int(v) for k, v in h.items() if k.startswith("o:")}
    out["recent"] = []
    for raw in changes:
        try:
            out["recent"].append(_readable(json.loads(raw)))
        except ValueError:
            continue
    out["running_jobs"] = {}
    for jid, raw in sorted((running or {}).items()):
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        out["running_jobs"][jid] = {"host": d.get("h") or "", "since": d.get("ts")}
    return out


def complete(snap: dict | None) -> bool:
    return snap is not None and snap["planned"] > 0 and snap["recorded"] >= snap["planned"]


def rebuild(r, cid: str, *, planned: list[str], recorded: dict[str, str], variant: str, tier: str,
            created: float, status: str, ttl: int) -> None:
    """Recreate the counters from the plan and the ledger (after Redis lost them); linear, once."""
    pipe = r.pipeline(transaction=False)
    outcomes: dict[str, int] = {}
    for j in planned:
        if j in recorded:
            outcomes[f"o:{recorded[j] or 'none'}"] = outcomes.get(f"o:{recorded[j] or 'none'}", 0) + 1
    pipe.delete(keys.campaign(cid))
    pipe.hset(keys.campaign(cid), mapping={**outcomes,
        "planned": len(planned), "jobs": len(planned), "variant": variant, "tier": tier, "created": created,
        "status": status, "recorded": sum(1 for j in planned if j in recorded),
        "failed": sum(1 for j in planned if recorded.get(j) in FAILED), "stale": 0, "running": 0, "requeued": 0})
    pipe.sadd(keys.CAMPAIGNS, cid)
    pipe.execute()
    items = [(j, _state("done", o=recorded[j]) if j in recorded else _state("queued")) for j in planned]
    for i in range(0, len(items), 2000):
        r.hset(keys.campaign_jobs(cid), mapping=dict(items[i:i + 2000]))
    r.expire(keys.campaign_jobs(cid), ttl)


# --- finalize: once per campaign -----------------------------------------------------------

def claim(r, cid: str, ttl: int = 600) -> str | None:
    """Take the finalize claim; None if another process holds it.  It expires, so a crash mid-finalize
    only delays the next attempt (reconcile or a redelivered record) by ``ttl``."""
    token = uuid.uuid4().hex
    return token if r.set(keys.campaign_finalizing(cid), token, nx=True, ex=ttl) else None


_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


def release(r, cid: str, token: str) -> None:
    r.eval(_RELEASE, 1, keys.campaign_finalizing(cid), token)


def summarize(r, cid: str, *, ttl: int, drop: Iterable[str] = (), **fields: Any) -> None:
    """The campaign is in the ledger: keep a small summary hash (expiring), drop everything per job
    (plus ``drop``: other per-campaign keys, e.g. the dead-host module's lost jobs)."""
    pipe = r.pipeline(transaction=True)
    pipe.hset(keys.campaign(cid), mapping={"status": "finalized", "running": 0, "finalized_at": round(time.time(), 3),
                                      **{k: v for k, v in fields.items() if v is not None}})
    pipe.hdel(keys.campaign(cid), "finalize_pending")
    pipe.delete(keys.campaign_jobs(cid), keys.campaign_recent(cid), keys.campaign_running(cid), *drop)
    pipe.srem(keys.CAMPAIGNS, cid)
    pipe.expire(keys.campaign(cid), ttl)
    pipe.execute()


def active(r) -> list[str]:
    return sorted(r.smembers(keys.CAMPAIGNS) or [])
