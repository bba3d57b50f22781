"""The fleet at a glance: what ``status --watch`` draws every second and ``status --watch --json`` prints.

From Redis alone, in a few round trips whatever the campaign's size (no broadcast to the workers, so a
sleeping or partitioned host is shown as what it is):

* every host heard of: ``online`` (beating within ``queue.dead_host_secs``; since its worker started),
  ``offline`` (stopped cleanly, or silent past the window: since when), its current job(s) with how long
  each has run, its last heartbeat;
* the coordinator: online or not, and why not (:func:`swarmgym.queue.preflight.coordinator_state`);
* the campaigns' progress and failures so far (:class:`~swarmgym.queue.progress.CampaignState`).

Times are the broker's (:func:`swarmgym.queue.liveness.broker_now`), never this machine's clock, so a
watcher whose clock is off still reads the right ages.  Job ids are never cut.
"""
from __future__ import annotations

from typing import Any

from swarmgym.queue import liveness, preflight, views
from swarmgym.queue.progress import CampaignState


def hosts(cfg, r, now: float) -> list[dict[str, Any]]:
    """Every host and the coordinator(s), with state, since when, current jobs and last heartbeat."""
    regs = liveness.registrations(r)
    beats = liveness.beats(r)
    jobs: dict[str, list[dict[str, Any]]] = {}
    for jid, e in liveness.running(r).items():
        since = e.get("since")
        jobs.setdefault(str(e.get("host", "?")), []).append(
            {"job_id": jid, "campaign_id": e.get("cid"), "since": since,
             "running_secs": round(max(0.0, now - float(since)), 1) if since else None})
    out = []
    for host in sorted(set(regs) | set(beats) | set(jobs)):
        info, last = regs.get(host, {}), beats.get(host)
        node = str(info.get("node") or host)
        silent = round(max(0.0, now - last), 1) if last is not None else None
        if last is not None and silent is not None and silent < cfg.queue.dead_host_secs:
            state, since = "online", info.get("started")
        elif info.get("stopped") and last is None:
            state, since = "offline", info.get("stopped")
        elif last is not None:
            state, since = "offline", last  # silent past the window: dead, its job re-sent
        else:
            state, since = "unknown", None  # Redis lost its heartbeat (restarted): back within a beat
        out.append({"host": host, "node": node, "role": "coordinator" if node.startswith("coordinator@") else "host",
                    "variant": info.get("variant"), "state": state,
                    "why": "stopped" if info.get("stopped") and last is None else
                    f"silent {liveness.fmt_secs(silent)}" if state == "offline" and silent is not None else "",
                    "since": since, "last_beat": last, "silent": silent,
                    "jobs": sorted(jobs.get(host, []), key=lambda j: j["job_id"])})
    return out


def campaign(st: CampaignState) -> dict[str, Any]:
    """A campaign's progress and its failures so far (full job ids)."""
    return {"campaign_id": st.campaign_id, "status": st.status, "variant": st.variant, "tier": st.tier,
            "planned": st.planned, "recorded": st.recorded, "failed": st.failed, "running": st.running,
            "queued": st.queued, "stale": st.stale, "outcomes": dict(st.outcomes),
            "failures": views.problem_rows(st), "note": st.note}


def snapshot(cfg, r, states: list[CampaignState]) -> dict[str, Any]:
    """The whole view: the broker's time, the coordinator, every host, the campaigns."""
    now = liveness.broker_now(r)
    coord, why = preflight.coordinator_state(cfg, r)
    every = hosts(cfg, r, now)
    return {"at": now, "coordinator": {"online": coord == "alive", "state": coord, "why": why},
            "hosts": [h for h in every if h["role"] == "host"],
            "coordinators": [h for h in every if h["role"] == "coordinator"],
            "campaigns": [campaign(st) for st in states]}
