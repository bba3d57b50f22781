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


def job_column(t: Table, ids, title: str = "job") -> None:
    """A column of job ids, never cut nor wrapped: the other columns give way (a job id is what people copy)."""
    t.add_column(title, no_wrap=True, min_width=max([len(str(i)) for i in ids] + [len(title)]))


def recent_table(st: CampaignState) -> Table:
    """The campaign's last changes."""
    t = Table(title=f"campaign {st.campaign_id} — last changes", title_justify="left")
    job_column(t, [c.get("job", "?") for c in st.recent])
    for col in ("state", "host", "overall", "when"):
        t.add_column(col)
    for c in st.recent:
        t.add_row(shown(c.get("job", "?")), shown(c.get("s", "?")), shown(c.get("host") or "-"),
                  BADGE.get(c.get("overall") or "", c.get("overall") or "-"), ago(c.get("ts")))
    return t


def running_table(st: CampaignState) -> Table:
    """Every job running now and the host it runs on (from Redis, constant time per host slot)."""
    t = Table(title=f"running now ({len(st.running_jobs)})", title_justify="left")
    job_column(t, st.running_jobs)
    for col in ("host", "since"):
        t.add_column(col)
    for jid, x in sorted(st.running_jobs.items()):
        t.add_row(shown(jid), shown(x.host or "-"), ago(x.since))
    return t


def all_table(st: CampaignState, rows) -> Table:
    """Every job of the campaign: ``rows`` as :func:`swarmgym.queue.progress.rows` gives them."""
    rows = list(rows)
    t = Table(title=f"campaign {st.campaign_id} — {st.status}", title_justify="left")
    job_column(t, [x["job_id"] for x in rows])
    for col in ("spec", "rep", "state", "host", "overall", "wall s"):
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
    job_column(t, [x["job_id"] for x in lines])
    for col in ("state", "reason"):
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


def _seen(w: dict) -> str:
    from datetime import datetime, timezone

    from swarmgym.queue.liveness import fmt_secs

    if w.get("last_seen") is None:
        return "-"
    return (f"{datetime.fromtimestamp(w['last_seen'], timezone.utc):%Y-%m-%d %H:%M:%S} UTC"
            + (f" ({fmt_secs(w['last_seen_ago'])} ago)" if w.get("last_seen_ago") is not None else ""))


def workers_table(rows: list[dict]) -> Table:
    """The hosts as :func:`swarmgym.queue.views.workers_state` reports them."""
    from swarmgym.queue import views

    t = Table()
    for col in ("worker", "host", "state", "last seen", "queues", "concurrency"):
        t.add_column(col, overflow="fold")
    job_column(t, [j for w in rows for j in w["current_job"]], "current job")
    t.add_column("note", overflow="fold")
    for w in rows:
        state = views.worker_state_text(w)
        t.add_row(shown(w["worker"] or "-"), shown(w["host"]),
                  shown(state) if w["state"] == "online" else f"[red]{shown(state)}[/]",
                  _seen(w), shown(",".join(w["queues"])), str(w["concurrency"] or "-"),
                  shown(", ".join(w["current_job"]) or "-"), shown(w["suite_note"] or ""))
    return t


# --- the fleet, live (status --watch) ----------------------------------------------------------

def _age(ts: Any, now: float) -> str:
    """``ts`` against ``now`` (both the broker's clock): ``14:02:07 (3m ago)``; ``-`` when it is no time."""
    from datetime import datetime, timezone

    from swarmgym.queue.liveness import fmt_secs

    try:
        t = float(ts)
    except (TypeError, ValueError):
        return "-"
    return f"{datetime.fromtimestamp(t, timezone.utc):%H:%M:%S} ({fmt_secs(max(0.0, now - t))} ago)"


def hosts_table(view: dict) -> Table:
    """Each host: online or offline since when, its current job (whole id) and how long it has run, its last
    heartbeat — as :func:`swarmgym.queue.fleetview.snapshot` gives them."""
    from swarmgym.queue.liveness import fmt_secs

    now = view["at"]
    ids = [j["job_id"] for h in view["hosts"] for j in h["jobs"]]
    t = Table(title=f"hosts ({sum(h['state'] == 'online' for h in view['hosts'])}/{len(view['hosts'])} online)",
              title_justify="left")
    t.add_column("host", overflow="fold")
    t.add_column("state")
    t.add_column("since")
    job_column(t, ids, "current job")
    t.add_column("running for")
    t.add_column("last heartbeat")
    for h in view["hosts"]:
        state = "[green]online[/]" if h["state"] == "online" else f"[red]{h['state']}[/]" + (
            f" ({shown(h['why'])})" if h.get("why") else "")
        jobs = h["jobs"] or [{"job_id": "-", "running_secs": None}]
        for i, j in enumerate(jobs):
            first = i == 0
            t.add_row(shown(h["host"]) if first else "", state if first else "", _age(h["since"], now) if first else "",
                      shown(j["job_id"]), fmt_secs(j["running_secs"]) if j.get("running_secs") is not None else "-",
                      _age(h["last_beat"], now) if first else "")
    return t


def coordinator_line(view: dict) -> str:
    c = view["coordinator"]
    if c["online"]:
        nodes = ", ".join(shown(h["node"]) for h in view.get("coordinators", []) if h["state"] == "online")
        return "coordinator: [green]online[/]" + (f" ({nodes})" if nodes else "")
    return f"coordinator: [red]NOT online[/] — {shown(c['why'])}; results wait in the broker until one runs"


def campaign_line(c: dict) -> str:
    outcome = ", ".join(f"{k} {v}" for k, v in sorted(c["outcomes"].items()) if v)
    return (f"{shown(c['campaign_id'])}: {shown(c['status'])}; {c['recorded']}/{c['planned']} recorded"
            + (f" ({outcome})" if outcome else "") + f", {c['running']} running, {c['queued']} queued, "
            + (f"[red]{c['failed']} failed[/]" if c["failed"] else "0 failed")
            + (f", {c['stale']} stale" if c.get("stale") else ""))


def failures_table(c: dict) -> Table | None:
    if not c["failures"]:
        return None
    t = Table(title=f"{shown(c['campaign_id'])}: failures so far", title_justify="left")
    job_column(t, [x["job_id"] for x in c["failures"]])
    t.add_column("state", overflow="fold")
    t.add_column("reason", overflow="fold")
    for x in c["failures"]:
        t.add_row(shown(x["job_id"]), shown(x["state"]), shown(x["reason"]))
    return t


def fleet_view(view: dict):
    """The whole live view as one rich renderable."""
    from rich.console import Group

    parts: list[Any] = [coordinator_line(view), hosts_table(view)]
    for c in view["campaigns"]:
        parts.append(campaign_line(c))
        if c.get("note"):
            parts.append(f"[yellow]{shown(c['note'])}[/]")
        ft = failures_table(c)
        if ft is not None:
            parts.append(ft)
    if not view["campaigns"]:
        parts.append("no campaign in flight")
    return Group(*parts)
