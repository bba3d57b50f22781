"""What ``status`` and ``workers`` show: plain data (``--json`` prints it as is) and the lines people read.

Each job of a campaign is ``done`` (with its verdict, and the reason when it errored or failed),
``running@host``, ``recording`` (its result is on its way to the ledger), ``queued``, or
``lost (h2 silent 2m10s) → re-sent`` when the coordinator took it from a silent host (the campaign's
state: :mod:`swarmgym.queue.progress`).  A host is ``online`` (it answered), ``dead`` (silent for
``queue.dead_host_secs``), ``unresponsive`` or ``offline`` (stopped cleanly: since when).  Nothing here
raises on an unreachable Redis: the problem becomes one line.
"""
from __future__ import annotations

from typing import Any

from swarmgym.queue import liveness
from swarmgym.queue.liveness import fmt_secs
from swarmgym.queue.progress import CampaignState


def problem_rows(st: CampaignState) -> list[dict[str, str]]:
    """What needs a look: jobs taken from silent hosts and not done since, then errored and failed jobs."""
    out = [{"job_id": jid, "state": info.shown if info.state in ("queued", "unknown")
            else f"{info.shown}, now {info.state}",
            "reason": f"host {info.host} " + ("restarted under its name" if info.restarted else "went silent")}
           for jid, info in sorted(st.lost.items()) if info.state != "done"]
    out += [{"job_id": p.job_id, "state": f"{p.overall}@{p.host}" if p.host else p.overall,
             "reason": p.reason} for p in st.problems]
    return out


# --- workers ---------------------------------------------------------------------------------

def workers_state(app, cfg, r, timeout: float = 1.5) -> list[dict[str, Any]]:
    """Every host heard of: online (answered now), dead (silent past the window) or offline."""
    now = liveness.broker_now(r) if r is not None else None
    beats = liveness.hosts(r, cfg.queue.dead_host_secs, now) if r is not None else {}
    queues, active, stats = _ask_hosts(app, timeout, set(beats))
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
                    **_last_seen(info.get("last"), now), "suites": info.get("suites", {}), "suite_note": _suite_note(info, expected)})
    for host, info in sorted(beats.items()):
        if host in seen_hosts or not info.get("node") or info.get("node", "").startswith("coordinator@"):
            continue
        state = "dead" if info["dead"] else "unresponsive"
        out.append({"worker": info.get("node"), "host": host, "state": state, "queues": info.get("queues", []),
                    "concurrency": None, "current_job": [], "silent": info.get("silent"),
                    **_last_seen(info.get("last"), now), "suites": info.get("suites", {}), "suite_note": _suite_note(info, expected)})
    stopped = liveness.registrations(r) if r is not None else {}
    for host, info in sorted(stopped.items()):
        if host in seen_hosts or host in beats or not info.get("stopped") or str(host).startswith("coordinator@"):
            continue
        out.append({"worker": info.get("node"), "host": host, "state": "offline", "queues": info.get("queues", []),
                    "concurrency": None, "current_job": [], "silent": None, "stopped": info.get("stopped"),
                    **_last_seen(info.get("stopped"), now), "suites": info.get("suites", {}), "suite_note": ""})
    return out


def _ask_hosts(app, timeout: float, beating: set[str]) -> tuple[dict, dict, dict]:
    """(active queues, active tasks, stats) by node, three broadcasts.  Each ends when as many nodes have
    answered as hosts beat, or at ``timeout``: a fleet whose hosts are all up is shown at once, not after
    three timeouts.  If those answers came early but a beating host is not among them (a node that never
    beat answered first), the three are asked again, each waiting out ``timeout``."""
    def ask(limit: int | None) -> tuple[dict, dict, dict]:
        insp = app.control.inspect(timeout=timeout, limit=limit)
        return insp.active_queues() or {}, insp.active() or {}, insp.stats() or {}

    got = ask(len(beating) or None)
    early = beating and any(len(replies) >= len(beating) and not beating <= {n.split("@", 1)[-1] for n in replies}
                            for replies in got)
    return ask(None) if early else got


def _last_seen(ts, now: float | None) -> dict[str, float | None]:
    """When the host was last heard of (its last heartbeat, or its clean stop) and how long ago, on the
    broker's clock."""
    try:
        t = float(ts)
    except (TypeError, ValueError):
        return {"last_seen": None, "last_seen_ago": None}
    return {"last_seen": t, "last_seen_ago": round(max(0.0, now - t), 1) if now is not None else None}


def _expected_suite_hash(cfg) -> tuple[str, str] | None:
    try:
        from swarmgym.suitekit.suite import load_suite

        s = load_suite(cfg.suite, cfg.suites_dir)
        return s.name, s.hash
    except Exception:
        return None


def _suite_note(info: dict, expected: tuple[str, str] | None) -> str:
    stopped = info.get("not_consuming") or {}
    if stopped:
        return "; ".join(f"not consuming {q}: {why}" for q, why in sorted(stopped.items()))
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
    if w["state"] == "offline":
        return "offline (stopped)"
    if w["state"] == "dead":
        return f"dead (silent {fmt_secs(w['silent'] or 0)})"
    if w["state"] == "unresponsive":
        return f"unresponsive (silent {fmt_secs(w['silent'] or 0)})"
    return "online"

