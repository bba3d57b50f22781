"""What the fleet commands show: a campaign's state, its jobs and the hosts, as rich tables and one-line
summaries.  Thin views over a :class:`~swarmgym.queue.progress.CampaignState` and the host dicts of
:mod:`swarmgym.queue.views`; every app- or swarm-chosen string goes through
:func:`swarmgym.trust.textsafe.shown`.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.table import Table

from swarmgym.trust.textsafe import shown

if TYPE_CHECKING:
    from swarmgym.queue.progress import CampaignState

BADGE = {"pass": "[green]pass[/]", "partial": "[yellow]partial[/]", "fail": "[red]fail[/]", "error": "[magenta]error[/]",
         "infra": "[blue]infra[/]"}


def ago(ts: Any) -> str:
    """``ts`` (unix time) as ``12s ago`` / ``3m ago``; ``-`` when it is no time."""
    try:
        secs = max(0.0, time.time() - float(ts))
    except (TypeError, ValueError):
        return "-"
    return f"{secs:.0f}s ago" if secs < 120 else f"{secs / 60:.0f}m ago"


def recent_table(st: CampaignState) -> Table:
    """The campaign's last changes."""
    t = Table(title=f"campaign {st.campaign_id} — last changes", title_justify="left")
    for col in ("job", "state", "host", "overall", "when"):
        t.add_column(col)
    for c in st.recent:
        t.add_row(shown(c.get("job", "?")), shown(c.get("s", "?")), shown(c.get("host") or "-"),
                  BADGE.get(c.get("overall") or "", c.get("overall") or "-"), ago(c.get("ts")))
    return t


def running_table(st: CampaignState) -> Table:
    """Every job running now and the host it runs on (from Redis, constant time per host slot)."""
    t = Table(title=f"running now ({len(st.running_jobs)})", title_justify="left")
    for col in ("job", "host", "since"):
        t.add_column(col)
    for jid, x in sorted(st.running_jobs.items()):
        t.add_row(shown(jid), shown(x.host or "-"), ago(x.since))
    return t


def all_table(st: CampaignState, rows) -> Table:
    """Every job of the campaign: ``rows`` as :func:`swarmgym.queue.progress.rows` gives them."""
    t = Table(title=f"campaign {st.campaign_id} — {st.status}", title_justify="left")
    for col in ("job", "spec", "rep", "state", "host", "overall", "wall s"):
        t.add_column(col)
    for x in rows:
        t.add_row(shown(x["job_id"]), shown(x["spec"]), str(x["rep"]), shown(x["state"]), shown(x["host"] or "-"),
                  BADGE.get(x["overall"], x["overall"] or "-"),
                  f"{x['wall_secs']:.1f}" if x["wall_secs"] is not None else "-")
    return t


def summary(st: CampaignState) -> str:
    """The campaign in a line (rich markup): counters, outcomes, the cluster verdict and the change against its
    baseline when finalized, and a failing ledger."""
    outcome = ", ".join(f"{k} {v}" for k, v in sorted(st.outcomes.items()) if v)
    head = f"{st.campaign_id}: "
    if st.variant:
        head += f"{st.variant}/{st.tier} "
    line = (head + f"{st.status}; {st.recorded}/{st.planned} recorded"
            + (f" ({outcome})" if outcome else "") + f", {st.running} running, {st.queued} queued")
    if st.stale:
        line += f", {st.stale} stale"
    if st.lost:
        line += f", {len(st.lost)} re-sent from silent hosts"
    rec = st.campaign_record
    if rec is not None:
        findings = rec.data.get("findings", [])
        line += f"; cluster {rec.overall}" + (f", {len(findings)} finding(s)" if findings else "")
        if rec.change is not None:
            from rich.markup import escape

            from swarmgym.trend.change import line as change_line

            line += "\n" + escape(change_line(rec.change))
    from swarmgym.queue import durable

    err = durable.line(st.ledger_error)
    return line + (f"\n{err}" if err else "")


def problems_table(st: CampaignState) -> Table | None:
    """Jobs taken from silent hosts and jobs that errored or failed, with the reason: what a person
    reads first in the morning."""
    from swarmgym.queue import views

    lines = views.problem_rows(st)
    if not lines:
        return None
    t = Table(title="needs a look", title_justify="left")
    for col in ("job", "state", "reason"):
        t.add_column(col, overflow="fold")
    for x in lines:
        t.add_row(shown(x["job_id"]), shown(x["state"]), shown(x["reason"]))
    return t


def json_state(st: CampaignState, rows=None) -> dict:
    """The campaign state as JSON data; ``rows`` (every job, :func:`swarmgym.queue.progress.rows`) under ``jobs``."""
    out = st.model_dump(mode="json")
    if rows is not None:
        out["jobs"] = list(rows)
    return out


def workers_table(rows: list[dict]) -> Table:
    """The hosts as :func:`swarmgym.queue.views.workers_state` reports them."""
    from swarmgym.queue import views

    t = Table()
    for col in ("worker", "host", "state", "queues", "concurrency", "current job", "note"):
        t.add_column(col, overflow="fold")
    for w in rows:
        state = views.worker_state_text(w)
        t.add_row(shown(w["worker"] or "-"), shown(w["host"]),
                  shown(state) if w["state"] == "online" else f"[red]{shown(state)}[/]",
                  shown(",".join(w["queues"])), str(w["concurrency"] or "-"),
                  shown(", ".join(w["current_job"]) or "-"), shown(w["suite_note"] or ""))
    return t
