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

from swarmgym.ledger import Ledger
from swarmgym.queue import counters, deadhosts, durable, liveness
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


def decorate(cfg, r, st: dict[str, Any], limit: int = 50) -> dict[str, Any]:
    """Add to a status summary what a person must see: jobs taken from silent hosts (``lost``), the
    errored and failed jobs with their reason (``problems``, at most ``limit``) and a failing ledger
    (``ledger_error``).  Bounded: it reads only the lost and failed jobs, never the whole campaign."""
    cid = st["campaign_id"]
    lost: dict[str, dict] = {}
    if r is not None:
        for jid, info in deadhosts.lost_jobs_of(r, cid).items():
            state = counters.job_state(r, cid, jid).get("state") or "unknown"
            lost[jid] = {**info, "state": state, "shown": lost_text(info) if state != "done" else "re-sent, done"}
    st["lost"] = lost
    st["ledger_error"] = durable.state(r) if r is not None else None
    problems = []
    if st.get("failed") or st.get("source") == "ledger":
        for rec in Ledger(cfg.ledger_dir).failures(cid, limit):
            problems.append({"job_id": rec.job_id, "overall": rec.overall, "host": rec.host or "",
                             "reason": reason_of(rec) or rec.overall})
    st["problems"] = problems
    return st


def problem_rows(st: dict) -> list[dict[str, str]]:
    out = [{"job_id": jid, "state": info["shown"] if info["state"] in ("queued", "unknown")
            else f"{info['shown']}, now {info['state']}", "reason": f"host {info.get('host')} went silent"}
           for jid, info in sorted((st.get("lost") or {}).items()) if info["state"] != "done"]
    out += [{"job_id": p["job_id"], "state": f"{p['overall']}@{p['host']}" if p["host"] else p["overall"],
             "reason": p["reason"]} for p in st.get("problems") or []]
    return out


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
    if w["state"] == "dead":
        return f"dead (silent {fmt_secs(w['silent'] or 0)})"
    if w["state"] == "unresponsive":
        return f"unresponsive (silent {fmt_secs(w['silent'] or 0)})"
    return "online"

