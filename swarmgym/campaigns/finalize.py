"""The end of a campaign, in-process or on the fleet: one ``kind="campaign"`` record, written once.

:func:`campaign_summary` builds it from the campaign's session records: the campaign monitor's cluster
health (:mod:`swarmgym.campaigns.monitor`) and the change against its baseline (:mod:`swarmgym.trend.change`).
``bench`` calls :func:`finish` when its last job is recorded; the coordinator's finalize calls
:func:`campaign_summary` under its claim and writes through its batched writer.  The record is in the
ledger before any ``on_change`` alarm runs (:mod:`swarmgym.trend.alarm`).
"""
from __future__ import annotations

import time
from typing import Any, Sequence

from swarmgym.adapters.provenance import campaign_provenance
from swarmgym.campaigns.monitor import campaign_health, campaign_overall, idle_names
from swarmgym.config import Config
from swarmgym.core.states import CampaignStatus
from swarmgym.ledger import Ledger, campaign_job_id, campaign_record
from swarmgym.models import LedgerRecord
from swarmgym.trend.change import assess_campaign


def campaign_summary(cfg: Config, ledger: Ledger, camp: Any, recs: Sequence[LedgerRecord],
                     host_weights: dict[str, float] | None) -> LedgerRecord:
    """The campaign record of ``camp`` (a :class:`~swarmgym.campaigns.plan.Campaign`) from its session records."""
    findings, data = campaign_health(list(recs), host_weights)
    started = min((x.data.get("started") or x.ts) for x in recs) if recs else camp.created
    data.update(planned=len(camp.jobs), created=camp.created, makespan_secs=round(time.time() - camp.created, 3),
                first_start=started, status=CampaignStatus.CANCELLED if camp.cancelled else CampaignStatus.COMPLETE)
    if camp.schedule:
        data["schedule"] = camp.schedule
    change = assess_campaign(cfg, ledger, camp.campaign_id, recs, created=camp.created, schedule=camp.schedule,
                             hard=camp.tier == "extreme")
    rate = data.get("functional_rate")
    return campaign_record(camp.campaign_id, variant=camp.variant, tier=camp.tier, overall=campaign_overall(findings),
                           findings=findings, suite=camp.suite, suite_hash=camp.suite_hash,
                           idle_nodes=idle_names(data), data=data, functional=rate == 1.0,
                           provenance=campaign_provenance(camp), change=change)


def finish(cfg: Config, ledger: Ledger, camp: Any, host_weights: dict[str, float] | None = None
           ) -> LedgerRecord | None:
    """In-process: write the campaign record once every planned job is recorded (None while some are not,
    or when it was written before: a resumed campaign is finalized once)."""
    if ledger.has_job(campaign_job_id(camp.campaign_id)):
        return None
    recs = ledger.records(kind="session", campaign_id=camp.campaign_id)
    if {j.job_id for j in camp.jobs} - {r.job_id for r in recs}:
        return None
    rec = campaign_summary(cfg, ledger, camp, recs, host_weights)
    return rec if ledger.record(rec) else None
