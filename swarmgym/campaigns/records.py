"""Where the CLI reads what was recorded: one seam with one method, like httpx's transport.

    answer = source.ask(Ask(kind="campaign", campaign_ids=[cid]))

A :class:`RecordSource` answers an :class:`Ask` with an :class:`Answer`.  :class:`LedgerSource` answers
from a home — its plans (``runs/campaigns/``) and its ledger: the embedded path (a ``bench`` campaign is
in the ledger of the home that ran it) and, on the coordinator, the fleet's truth.
:class:`swarmgym.queue.asking.BrokerSource` carries the same question over the broker to the coordinator,
which answers it with a LedgerSource over its own home: the fleet commands (``status``, ``compare
--fleet``, ``resume``, ``cancel``) never read the CLI machine's files for a fleet campaign.

The questions:

``campaigns``  the campaigns the source knows (ids, oldest first)
``campaign``   each campaign's facts: plan (planned, mode, cancelled), recorded outcomes, the failed jobs
               with their reason, the campaign record once finalized
``rows``       every planned job of one campaign, in plan order, with its record's host, overall and wall
``sessions``   the session records of the campaigns (what ``compare`` pairs)
``plan``       the plan and what is recorded of it (job_id -> overall): what ``resume`` re-sends
``cancel`` / ``resume``   mark the plan cancelled / not cancelled (the one copy that counts), then as ``plan``

An answer that cannot be given carries ``error`` (one line), never a traceback.
"""
from __future__ import annotations

from typing import Literal, Protocol

from pydantic import Field

from swarmgym.campaigns.plan import Campaign, list_campaigns, load_campaign, save_campaign
from swarmgym.config import Config
from swarmgym.core.errors import SwarmgymError, UsageError
from swarmgym.ledger import Ledger, campaign_job_id
from swarmgym.models import LedgerRecord, Model

AskKind = Literal["campaigns", "campaign", "rows", "sessions", "plan", "cancel", "resume"]
FAILED = ("error", "infra", "fail")   # overall values that need a look in ``status``


class Ask(Model):
    """A question to a record source (sent over the queue to the coordinator as JSON)."""

    schema_version: int = 1
    kind: AskKind
    campaign_ids: list[str] = Field(default_factory=list)
    limit: int = 50  # failed jobs listed per campaign


class Problem(Model):
    """A job that errored, could not run or failed, with the reason a person reads."""

    job_id: str
    overall: str
    host: str = ""
    reason: str = ""


class JobRow(Model):
    """One planned job and, once recorded, its record's host, overall and wall time."""

    job_id: str
    spec: str
    rep: int
    recorded: bool = False
    host: str = ""
    overall: str = ""
    wall_secs: float | None = None


class CampaignFacts(Model):
    """What the recording side knows of one campaign."""

    campaign_id: str
    mode: Literal["local", "queue"] = "queue"
    variant: str | None = None
    tier: str | None = None
    created: float | None = None
    planned: int = 0
    cancelled: bool = False
    recorded: int = 0
    outcomes: dict[str, int] = Field(default_factory=dict)  # overall -> records
    failures: list[Problem] = Field(default_factory=list)
    campaign_record: LedgerRecord | None = None


class Answer(Model):
    schema_version: int = 1
    error: str | None = None  # one line: the question could not be answered
    campaigns: list[str] = Field(default_factory=list)
    facts: list[CampaignFacts] = Field(default_factory=list)
    rows: list[JobRow] = Field(default_factory=list)
    sessions: list[LedgerRecord] = Field(default_factory=list)
    plan: Campaign | None = None
    recorded: dict[str, str] = Field(default_factory=dict)  # job_id -> overall of the plan's recorded jobs


class RecordSource(Protocol):
    def ask(self, q: Ask) -> Answer: ...


def checked(source: RecordSource, q: Ask) -> Answer:
    """``source.ask(q)``, its error raised as one line (exit 2)."""
    a = source.ask(q)
    if a.error:
        raise UsageError(a.error)
    return a


def reason_of(rec: LedgerRecord | None) -> str:
    """Why a job did not pass: its error (type: message), else its failing dimensions."""
    if rec is None:
        return ""
    if rec.error is not None:
        msg = " ".join(rec.error.message.split())
        return f"{rec.error.type}: {msg}"[:240]
    if rec.overall in ("fail", "partial"):
        bad = [k for k, v in (rec.dimensions or {}).items() if v in ("fail", "partial")]
        return ("failed: " + ", ".join(sorted(bad))) if bad else ""
    return ""


class LedgerSource:
    """Answers from ``cfg``'s home: its plans and its ledger.  The coordinator's subclass finds plans in
    Redis too and publishes a changed plan (:class:`swarmgym.queue.asking.CoordinatorSource`)."""

    def __init__(self, cfg: Config, ledger: Ledger | None = None) -> None:
        self.cfg = cfg
        self.ledger = ledger or Ledger(cfg.ledger_dir)

    # -- where plans are (overridden on the coordinator) --

    def plan(self, cid: str) -> Campaign:
        return load_campaign(self.cfg, cid)

    def plan_ids(self) -> list[str]:
        return list_campaigns(self.cfg)

    def save(self, camp: Campaign) -> None:
        save_campaign(self.cfg, camp)

    # -- the one method --

    def ask(self, q: Ask) -> Answer:
        try:
            return self._answer(q)
        except SwarmgymError as e:
            return Answer(error=str(e).splitlines()[0] if str(e) else type(e).__name__)

    def _answer(self, q: Ask) -> Answer:
        if q.kind == "campaigns":
            return Answer(campaigns=self.plan_ids())
        if q.kind == "campaign":
            return Answer(facts=[self.facts(cid, q.limit) for cid in q.campaign_ids])
        if q.kind == "sessions":
            return Answer(sessions=[r for cid in q.campaign_ids
                                    for r in self.ledger.records(kind="session", campaign_id=cid)])
        (cid,) = q.campaign_ids[:1] or [""]
        if not cid:
            raise UsageError(f"ask {q.kind}: which campaign? (no campaign id)")
        if q.kind == "rows":
            return Answer(rows=self.rows(cid))
        camp = self.plan(cid)
        if q.kind in ("cancel", "resume") and camp.cancelled != (q.kind == "cancel"):
            camp.cancelled = q.kind == "cancel"
            self.save(camp)
        return Answer(plan=camp, recorded=self.ledger.overall_by_job(cid))

    def facts(self, cid: str, limit: int = 50) -> CampaignFacts:
        found = self.ledger.find(campaign_job_id(cid))
        crec = found[0] if found else None
        outcomes = self.ledger.counts(cid)
        out = CampaignFacts(campaign_id=cid, campaign_record=crec, outcomes=outcomes, recorded=sum(outcomes.values()),
                            variant=crec.variant if crec else None, tier=crec.tier if crec else None)
        if crec is not None and crec.data.get("planned") is not None:
            out.planned, out.created = int(crec.data["planned"]), crec.data.get("created")
            out.cancelled = crec.data.get("status") == "cancelled"
        else:
            camp = self.plan(cid)  # one clear line if there is no such campaign
            out.planned, out.mode, out.cancelled = len(camp.jobs), camp.mode, camp.cancelled
            out.variant, out.tier, out.created = camp.variant, camp.tier, camp.created
        if any(outcomes.get(k) for k in FAILED):
            out.failures = [Problem(job_id=r.job_id, overall=r.overall, host=r.host or "",
                                    reason=reason_of(r) or r.overall) for r in self.ledger.failures(cid, limit)]
        return out

    def rows(self, cid: str, page_size: int = 500) -> list[JobRow]:
        """Every planned job in plan order, read from the ledger page by page."""
        camp = self.plan(cid)
        recs: dict[str, tuple] = {}
        after = 0
        while page := self.ledger.page(cid, after_line=after, limit=page_size):
            for _line, job_id, host, overall, wall in page:
                recs[job_id] = (host, overall, wall)
            after = page[-1][0]
        out = []
        for j in camp.jobs:
            host, overall, wall = recs.get(j.job_id, ("", "", None))
            out.append(JobRow(job_id=j.job_id, spec=j.spec, rep=j.rep, recorded=j.job_id in recs, host=host or "",
                              overall=overall or "", wall_secs=wall))
        return out
