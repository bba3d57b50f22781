"""What ``status``, ``--watch`` and ``--wait`` show, at a cost that does not grow with the campaign.

A campaign's state is a :class:`CampaignState`.  :func:`tick` fills it from the counters and last
changes in Redis alone (one round trip: a ``--watch`` tick).  :func:`state` adds what the recording side
knows (a record source, :mod:`swarmgym.campaigns.records`: the coordinator's ledger through the broker,
or this home's for an embedded campaign): the campaign record once finalized, the failed jobs with their
reason, the counts when Redis has nothing (down, flushed, summary expired) — indexed lookups, no record
of the campaign parsed but the failed ones.  It also adds the jobs taken from silent hosts and a failing
ledger.  When no coordinator is alive, the counters are shown with a note saying what is missing.
:func:`rows` is the full per-job table (``status --all`` / ``--json``): linear, and only when asked for.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from swarmgym.campaigns.records import FAILED, Ask, CampaignFacts, Problem, RecordSource, checked
from swarmgym.core.errors import QueueError, UsageError
from swarmgym.models import LedgerRecord, Model
from swarmgym.queue import counters, deadhosts, durable, plans
from swarmgym.queue.asking import CoordinatorGone
from swarmgym.queue.liveness import fmt_secs


class RunningJob(Model):
    host: str = ""
    since: float | None = None


class LostJob(Model):
    """A job the coordinator took from a silent host, and where it is now."""

    host: str = "?"
    silent: float = 0.0
    ts: float | None = None
    stale_task: str | None = None
    task_id: str | None = None
    restarted: bool = False  # taken from an earlier life of the host (restarted under its name), not a silence
    state: str = "unknown"
    shown: str = ""


class CampaignState(Model):
    """A campaign as ``status`` shows it (``--json`` prints it as is)."""

    campaign_id: str
    status: str = "running"
    variant: str | None = None
    tier: str | None = None
    created: float | None = None
    planned: int = 0
    recorded: int = 0
    failed: int = 0
    stale: int = 0
    running: int = 0
    requeued: int = 0
    queued: int = 0
    outcomes: dict[str, int] = Field(default_factory=dict)
    recent: list[dict[str, Any]] = Field(default_factory=list)  # the last changes, newest first
    running_jobs: dict[str, RunningJob] = Field(default_factory=dict)
    lost: dict[str, LostJob] = Field(default_factory=dict)
    problems: list[Problem] = Field(default_factory=list)
    ledger_error: dict[str, Any] | None = None
    campaign_record: LedgerRecord | None = None
    last_ts: float | None = None
    finalized_at: float | None = None
    source: Literal["redis", "ledger"] = "redis"  # where the counters came from
    note: str = ""  # what could not be read, in one line

    @property
    def done(self) -> bool:
        return self.status in ("finalized", "cancelled", "complete")


def _num(v: Any) -> float | None:
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def tick(r, cid: str, recent: int = 10) -> CampaignState | None:
    """The campaign's counters, last changes and running jobs from Redis alone (None: Redis has none)."""
    snap = counters.snapshot(r, cid, recent) if r is not None else None
    if snap is None:
        return None
    st = CampaignState(campaign_id=cid, status=snap.get("status") or "running", variant=snap.get("variant"),
                       tier=snap.get("tier"), created=_num(snap.get("created")), outcomes=snap["outcomes"],
                       recent=snap["recent"], running_jobs=snap["running_jobs"], last_ts=_num(snap.get("last_ts")),
                       finalized_at=_num(snap.get("finalized_at")),
                       **{c: snap[c] for c in counters.COUNTERS})
    st.queued = max(0, st.planned - st.recorded - st.running)
    return st


def from_facts(f: CampaignFacts) -> CampaignState:
    """The counters as the recording side counts them (Redis has none)."""
    status = ("cancelled" if f.cancelled else "complete" if f.mode == "local" and f.recorded >= f.planned
              else "running")
    return CampaignState(campaign_id=f.campaign_id, status=status, variant=f.variant, tier=f.tier, created=f.created,
                         planned=f.planned, recorded=f.recorded, outcomes=f.outcomes, source="ledger",
                         failed=sum(v for k, v in f.outcomes.items() if k in FAILED),
                         queued=max(0, f.planned - f.recorded))


def state(r, source: RecordSource, cid: str, recent: int = 10, limit: int = 50) -> CampaignState:
    """Everything ``status CID`` shows; a campaign nobody knows is one line (UsageError)."""
    return states(r, source, [cid], recent, limit)[0]


def states(r, source: RecordSource, cids: list[str], recent: int = 10, limit: int = 50) -> list[CampaignState]:
    """:func:`state` of each campaign, the recording side asked once for all of them."""
    ticks: dict[str, CampaignState | None] = {}
    for cid in cids:
        try:
            got = tick(r, cid, recent)
            ticks[cid] = decorate(r, got) if got is not None else None  # lost jobs read now: finalize drops them
        except Exception:  # Redis went away between ping and read: the recording side still answers
            ticks[cid] = None
    gone = ""
    try:
        facts = {f.campaign_id: f for f in checked(source, Ask(kind="campaign", campaign_ids=cids, limit=limit)).facts}
    except CoordinatorGone as e:
        facts, gone = {}, str(e)
    out = []
    for cid in cids:
        st, f = ticks[cid], facts.get(cid)
        if st is None:
            if f is None:
                raise UsageError(f"campaign {cid!r}: not in Redis, and {gone or 'no answer about it'}")
            st = decorate(r, from_facts(f))
        if f is None:
            st.note = f"{gone}: the campaign record and failed jobs are not shown"
        else:
            st.campaign_record, st.problems = f.campaign_record, f.failures
            st.variant, st.tier = st.variant or f.variant, st.tier or f.tier
            if f.campaign_record is not None:
                st.status = "finalized"
        out.append(st)
    return out


def decorate(r, st: CampaignState) -> CampaignState:
    """Add the jobs taken from silent hosts (``lost``) and a failing ledger, from Redis (bounded: only the
    lost jobs are read, never the whole campaign)."""
    if r is None:
        return st
    for jid, info in deadhosts.lost_jobs_of(r, st.campaign_id).items():
        now = counters.job_state(r, st.campaign_id, jid).get("state") or "unknown"
        lost = LostJob.model_validate({**info, "state": now})
        lost.shown = lost_text(lost) if now != "done" else "re-sent, done"
        st.lost[jid] = lost
    st.ledger_error = durable.state(r)
    return st


def lost_text(info: LostJob) -> str:
    if info.restarted:
        return f"lost ({info.host} restarted) → re-sent"
    return f"lost ({info.host} silent {fmt_secs(info.silent)}) → re-sent"


def campaign_ids(r, source: RecordSource) -> list[str]:
    """The campaigns the source knows, else (no coordinator alive) the active ones in Redis."""
    try:
        return checked(source, Ask(kind="campaigns")).campaigns
    except CoordinatorGone:
        return counters.active(r) if r is not None else []


def rows(r, source: RecordSource, cid: str) -> list[dict[str, Any]]:
    """Every planned job with its state, in plan order (``status --all``): the recording side's rows;
    with no coordinator alive, the plan and job states the broker holds (no wall time)."""
    where = counters.job_states(r, cid) if r is not None else {}
    try:
        planned = checked(source, Ask(kind="rows", campaign_ids=[cid])).rows
    except CoordinatorGone as e:
        camp = plans.fetch(r, cid)
        if camp is None:
            raise QueueError(f"campaign {cid!r}: no plan in Redis, and {e}") from None
        return [{"job_id": j.job_id, "spec": j.spec, "rep": j.rep, "state": where.get(j.job_id, {}).get("state")
                 or "unknown", "host": where.get(j.job_id, {}).get("host") or "",
                 "overall": where.get(j.job_id, {}).get("overall") or "", "wall_secs": None} for j in camp.jobs]
    out = []
    for x in planned:
        s = where.get(x.job_id, {})
        out.append({"job_id": x.job_id, "spec": x.spec, "rep": x.rep,
                    "state": "done" if x.recorded else s.get("state") or "unknown",
                    "host": x.host if x.recorded else s.get("host") or "", "overall": x.overall,
                    "wall_secs": x.wall_secs})
    return out
