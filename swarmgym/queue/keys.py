"""Every name the fleet shares through Redis: the Redis keys swarmgym writes and the Celery task names.

One home for each name (like rq's ``keys.py``): a module that reads or writes a key asks this module
for it, and a module that sends or defines a task uses its constant here.  What each key holds, who
writes it, its lifetime and cleanup are in docs/redis-keys.md, whose table a test checks against
this module (every key built here has a row, every ``swarmgym:`` row a key built here).

Keys are either fixed (``UPPER_CASE`` constants) or built from an id by a function; a function's
arguments are the only variable parts, so ``builder("*")`` is the key's pattern.
"""
from __future__ import annotations

PREFIX = "swarmgym:"

# -- fleet-wide keys --------------------------------------------------------------------------------

CAMPAIGNS = f"{PREFIX}campaigns"              # set: ids of campaigns not finalized yet (counters)
REPORTS_PENDING = f"{PREFIX}reports:pending"  # string: finalize asked for BENCHMARK.md + CSVs (coordinator)
STALE = f"{PREFIX}stale"                      # hash task_id -> JSON: deliveries taken from a dead host
HOSTBEAT = f"{PREFIX}hostbeat"                # hash host -> last heartbeat (liveness)
HOSTS = f"{PREFIX}hosts"                      # hash host -> what the host said about itself (liveness)
RUNNING = f"{PREFIX}running"                  # hash job_id -> the job a host runs now (liveness)
ANNOUNCED = f"{PREFIX}announced"              # list: hosts that just started a new life (liveness)
LEDGER_ERROR = f"{PREFIX}ledger:error"        # hash: ledger writes failing since when (durable)
RECONCILE_DUE = f"{PREFIX}reconcile:due"      # string: a reconcile is already asked for (lifecycle)
BEAT_LOCK = f"{PREFIX}beat:lock"              # string: the one running celery beat (schedules)
REFUSED = f"{PREFIX}refused"                  # list: the last results the coordinator refused (accept)
BROKER_SINCE = f"{PREFIX}broker:since"        # string: since when this Redis holds the fleet's keys (lifecycle)


# -- keys of one campaign ---------------------------------------------------------------------------

def campaign(cid: str) -> str:
    """hash: the campaign's counters while it runs, its summary once finalized (counters)."""
    return f"{PREFIX}campaign:{cid}"


def campaign_jobs(cid: str) -> str:
    """hash job_id -> compact JSON state of each job (counters)."""
    return f"{PREFIX}campaign:{cid}:jobs"


def campaign_recent(cid: str) -> str:
    """list: the last changes, newest first (counters)."""
    return f"{PREFIX}campaign:{cid}:recent"


def campaign_running(cid: str) -> str:
    """hash job_id -> ``{h: host, ts: since}`` of each job running now (counters)."""
    return f"{PREFIX}campaign:{cid}:running"


def campaign_finalizing(cid: str) -> str:
    """string: the finalize claim, ``SET NX EX`` (counters)."""
    return f"{PREFIX}campaign:{cid}:finalizing"


def campaign_leased(cid: str) -> str:
    """hash job_id -> every host that ever leased the job, ``h1,h2`` (lease)."""
    return f"{PREFIX}campaign:{cid}:leased"


def campaign_lost(cid: str) -> str:
    """hash job_id -> the last time the job was taken from a dead host (deadhosts)."""
    return f"{PREFIX}campaign:{cid}:lost"


def plan(cid: str) -> str:
    """string: the campaign's plan, so no shared home is needed (plans)."""
    return f"{PREFIX}plan:{cid}"


# -- keys of one job or host ------------------------------------------------------------------------

def lease(job_id: str) -> str:
    """string: the host holding the job's lease (lease)."""
    return f"{PREFIX}lease:{job_id}"


def draining(host: str, main_pid: int | str) -> str:
    """string: a host worker's main process is in warm shutdown (claim)."""
    return f"{PREFIX}draining:{host}:{main_pid}"


def reply(token: str) -> str:
    """list: the coordinator's answer to one question from the CLI (asking)."""
    return f"{PREFIX}reply:{token}"


# -- Celery task names ------------------------------------------------------------------------------

RUN_JOB = "swarmgym.run_job"                          # a host runs one JobSpec (workers.tasks)
RECORD_JOB = "swarmgym.record_job"                    # the coordinator records a host's result (coordinator)
FINALIZE_CAMPAIGN = "swarmgym.finalize_campaign"      # the coordinator closes a campaign (coordinator)
RECONCILE = "swarmgym.reconcile"                      # the coordinator's periodic sweep (coordinator)
CAMPAIGN_ALARM = "swarmgym.campaign_alarm"            # a finalized campaign's alarm (coordinator)
REGENERATE_REPORTS = "swarmgym.regenerate_reports"    # BENCHMARK.md + CSVs again (coordinator)
SCHEDULED_CAMPAIGN = "swarmgym.scheduled_campaign"    # beat enqueues a scheduled campaign (schedules)
ASK = "swarmgym.ask"                                  # the coordinator answers the CLI from its home (asking)

# every task but RUN_JOB runs on the coordinator (the router sends them to its queues)
COORDINATOR_TASKS = (RECORD_JOB, FINALIZE_CAMPAIGN, RECONCILE, CAMPAIGN_ALARM, REGENERATE_REPORTS,
                     SCHEDULED_CAMPAIGN, ASK)
TASKS = (RUN_JOB, *COORDINATOR_TASKS)
