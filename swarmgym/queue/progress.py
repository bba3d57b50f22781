"""What ``status``, ``--watch`` and ``--wait`` show, at a cost that does not grow with the campaign.

:func:`summary` reads the campaign's counters and last changes from Redis (one round trip) and,
once finalized, the campaign record by its unique job_id (one indexed lookup).  Only when Redis
has nothing (down, flushed, summary expired) does it fall back to the ledger: an indexed
``GROUP BY`` count, still no record parsed.  :func:`rows` is the full per-job table, in pages
(``status --all`` / ``--json``): linear, and only when asked for.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from swarmgym.campaigns.plan import load_campaign
from swarmgym.ledger import Ledger, campaign_job_id
from swarmgym.queue import counters


def summary(cfg, r, cid: str, recent: int = 10) -> dict[str, Any]:
    """{campaign_id, status, planned, recorded, failed, stale, running, queued, outcomes, recent,
    running_jobs, campaign_record, source}; raises UsageError for a campaign nobody knows."""
    snap = None
    if r is not None:
        try:
            snap = counters.snapshot(r, cid, recent)
        except Exception:  # Redis went away between ping and read: the ledger still answers
            snap = None
    ledger = Ledger(cfg.ledger_dir)
    found = ledger.find(campaign_job_id(cid))
    crec = found[0] if found else None
    if snap is not None:
        out = dict(snap, campaign_id=cid, source="redis")
        out.setdefault("status", "running")
    else:
        out = _from_ledger(cfg, ledger, cid, crec)
    if crec is not None:
        out["status"] = "finalized"
    out["queued"] = max(0, out["planned"] - out["recorded"] - out["running"])
    out.setdefault("running_jobs", {})
    out["campaign_record"] = crec
    return out


def _from_ledger(cfg, ledger, cid: str, crec) -> dict[str, Any]:
    outcomes = {k: v for k, v in ledger.counts(cid).items()}
    recorded = sum(outcomes.values())
    mode, cancelled = "queue", False
    if crec is not None and crec.data.get("planned") is not None:
        planned = int(crec.data["planned"])
    else:
        camp = load_campaign(cfg, cid)  # one clear line (exit 2) if there is no such campaign
        planned, mode, cancelled = len(camp.jobs), camp.mode, camp.cancelled
    status = ("cancelled" if cancelled else "complete" if mode == "local" and recorded >= planned else "running")
    return {"campaign_id": cid, "status": status, "planned": planned, "recorded": recorded,
            "failed": sum(v for k, v in outcomes.items() if k in counters.FAILED), "stale": 0, "running": 0,
            "requeued": 0, "outcomes": outcomes, "recent": [], "source": "ledger",
            "variant": crec.variant if crec else None, "tier": crec.tier if crec else None}


def rows(cfg, r, cid: str, page_size: int = 500) -> Iterator[dict[str, Any]]:
    """Every planned job with its state, in plan order, read page by page (``status --all``)."""
    camp = load_campaign(cfg, cid)
    ledger = Ledger(cfg.ledger_dir)
    states = counters.job_states(r, cid) if r is not None else {}
    recs: dict[str, Any] = {}
    after = 0
    while True:
        page = ledger.page(cid, after_line=after, limit=page_size)
        if not page:
            break
        for _line, job_id, host, overall, wall in page:
            recs[job_id] = (host, overall, wall)
        after = page[-1][0]
    for j in camp.jobs:
        st = states.get(j.job_id, {})
        if j.job_id in recs:
            host, overall, wall = recs[j.job_id]
            yield {"job_id": j.job_id, "spec": j.spec, "rep": j.rep, "state": "done", "host": host,
                   "overall": overall, "wall_secs": wall}
        else:
            yield {"job_id": j.job_id, "spec": j.spec, "rep": j.rep, "state": st.get("state") or "unknown",
                   "host": st.get("host") or "", "overall": "", "wall_secs": None}
