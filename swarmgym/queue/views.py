"""What ``status`` and ``workers`` show: plain data (``--json`` prints it as is) and the lines people read.

Each job of a campaign is ``done`` (with its verdict, and the reason when it errored or failed),
``running@host``, ``recording`` (its result is on its way to the ledger), ``queued``, or
``lost (h2 silent 2m10s) → re-sent`` when the coordinator took it from a silent host.  A host is
``online`` (it answered), ``dead`` (silent for ``queue.dead_host_secs``) or ``offline`` (stopped
cleanly or not heard of lately).  Nothing here raises on a broken ledger or an unreachable Redis:
the problem becomes one line.
"""
from __future__ import annotations

from typing import Any

from swarmgym.queue import deadhosts, durable, liveness
from swarmgym.queue.liveness import fmt_secs


def reason_of(rec) -> str:
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


def lost_text(info: dict) -> str:
    return f"lost ({info.get('host', '?')} silent {fmt_secs(float(info.get('silent') or 0))}) → re-sent"


def campaign_state(cfg, r, cid: str) -> dict[str, Any]:
    """Per-job state of a campaign from the plan, the ledger and Redis (``r`` may be None)."""
    from swarmgym.ledger import Ledger
    from swarmgym.queue import dispatch, store

    camp = store.load_campaign(cfg, cid)
    ledger = Ledger(cfg.ledger_dir)
    recs = {x.job_id: x for x in ledger.records(kind="session", campaign_id=cid)}
    states = store.job_states(r, cid) if r is not None else {}
    lost = deadhosts.lost_jobs_of(r, cid) if r is not None else {}
    todo = [j.job_id for j in camp.jobs if j.job_id not in recs]
    running = dispatch.running_job_ids(r, todo) if r is not None else set()
    rows = []
    for j in camp.jobs:
        rec, st = recs.get(j.job_id), states.get(j.job_id, {})
        if rec is not None:
            state, host, overall = "done", rec.host or "", rec.overall
        elif st.get("state") in ("running", "recording") or j.job_id in running:
            state, host, overall = st.get("state") or "running", st.get("host") or "", ""
        elif st:
            state, host, overall = st.get("state") or "queued", st.get("host") or "", ""
        else:
            state, host, overall = "unknown", "", ""
        li = lost.get(j.job_id)
        shown = state
        if state == "running" and host:
            shown = f"running@{host}"
        if li and state in ("queued", "unknown"):
            shown = lost_text(li)
        elif li and state != "done":
            shown = f"{lost_text(li)}, now {shown}"
        rows.append({"job_id": j.job_id, "spec": j.spec, "rep": j.rep, "state": state, "shown": shown,
                     "host": host, "overall": overall, "wall_secs": rec.wall_secs if rec else None,
                     "reason": reason_of(rec), "lost": li})
    finalized = ledger.has_job(f"campaign:{cid}")
    all_done = all(x["state"] == "done" for x in rows)
    status = ("finalized" if finalized else "cancelled" if camp.cancelled
              else "complete" if all_done and camp.mode == "local" else "running")  # bench: no finalize task
    crec = ledger.find(f"campaign:{cid}")[0] if finalized else None
    return {"campaign_id": cid, "variant": camp.variant, "tier": camp.tier, "status": status,
            "done": sum(x["state"] == "done" for x in rows), "running": sum(x["state"] == "running" for x in rows),
            "total": len(rows), "lost": sum(1 for x in rows if x["lost"]), "rows": rows,
            "ledger_error": durable.state(r) if r is not None else None,
            "cluster": ({"overall": crec.overall, "findings": len(crec.data.get("findings", []))} if crec else None)}


def summary_line(st: dict) -> str:
    counts: dict[str, int] = {}
    for x in st["rows"]:
        if x["overall"]:
            counts[x["overall"]] = counts.get(x["overall"], 0) + 1
    outcome = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    line = (f"{st['campaign_id']}: {st['variant']}/{st['tier']} {st['status']}; {st['done']}/{st['total']} recorded"
            + (f" ({outcome})" if outcome else "") + f", {st['running']} running")
    if st.get("lost"):
        line += f", {st['lost']} re-sent from silent hosts"
    c = st.get("cluster")
    if c:
        line += f"; cluster {c['overall']}" + (f", {c['findings']} finding(s)" if c["findings"] else "")
    return line


# --- workers ---------------------------------------------------------------------------------

def workers_state(app, cfg, r, timeout: float = 1.5) -> list[dict[str, Any]]:
    """Every host heard of: online (answered now), dead (silent past the window) or offline."""
    insp = app.control.inspect(timeout=timeout)
    queues = insp.active_queues() or {}
    active = insp.active() or {}
    stats = insp.stats() or {}
    beats = liveness.hosts(r, cfg.queue.dead_host_secs) if r is not None else {}
    expected = _expected_suite_hash(cfg)
    out: list[dict[str, Any]] = []
    seen_hosts = set()
    for node in sorted(queues):
        host = node.split("@", 1)[-1]
        seen_hosts.add(host)
        jobs = []
        for task in active.get(node) or []:
            args = task.get("args") or []
            job = args[0] if args and isinstance(args[0], dict) else {}
            jobs.append(job.get("job_id") or task.get("name", "?"))
        conc = (stats.get(node) or {}).get("pool", {}).get("max-concurrency")
        info = beats.get(host, {})
        out.append({"worker": node, "host": host, "state": "online", "queues": [q["name"] for q in queues[node]],
                    "concurrency": conc, "current_job": jobs, "silent": info.get("silent"),
                    "suites": info.get("suites", {}), "suite_note": _suite_note(info, expected)})
    for host, info in sorted(beats.items()):
        if host in seen_hosts or not info.get("node") or info.get("node", "").startswith("coordinator@"):
            continue
        state = "dead" if info["dead"] else "unresponsive"
        out.append({"worker": info.get("node"), "host": host, "state": state, "queues": info.get("queues", []),
                    "concurrency": None, "current_job": [], "silent": info.get("silent"),
                    "suites": info.get("suites", {}), "suite_note": _suite_note(info, expected)})
    return out


def _expected_suite_hash(cfg) -> tuple[str, str] | None:
    try:
        from swarmgym.suite import load_suite

        s = load_suite(cfg.suite, cfg.suites_dir)
        return s.name, s.hash
    except Exception:
        return None


def _suite_note(info: dict, expected: tuple[str, str] | None) -> str:
    if not expected or not info.get("suites"):
        return ""
    name, want = expected
    have = info["suites"].get(name)
    if have is None:
        return f"no suite {name}: takes none of its jobs"
    if have != want:
        return f"suite {name} hashes to {have[:12]}, expected {want[:12]}: takes none of its jobs"
    return ""


def worker_state_text(w: dict) -> str:
    if w["state"] == "dead":
        return f"dead (silent {fmt_secs(w['silent'] or 0)})"
    if w["state"] == "unresponsive":
        return f"unresponsive (silent {fmt_secs(w['silent'] or 0)})"
    return "online"

