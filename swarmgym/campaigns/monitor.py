"""Campaign-level monitor: how a campaign's work spread over devices and hosts.

Devices are judged *per job* (each job's dispatches against its own pool, :mod:`swarmgym.grading.balance`)
and then aggregated: for each device, the share of the jobs it was in where it was starved, idle
or underused, with those job ids.  Hosts are judged on the jobs they ran, against their worker
concurrency (every host consuming the campaign's queue counts, so a host that got nothing while
another ran several is starved).

Minimum evidence: one job never raises a high-severity alarm.  A device is ``high`` (starved) only
when it was flagged in at least ``MIN_JOBS`` jobs and in at least half of its jobs; with less
evidence the severity drops a level; flagged in under half its jobs it is ``low``, under a quarter
``info``.  A host is ``high`` only when the campaign had at least
``MIN_JOBS + 1`` jobs.  A flagged host is *confirmed idle* when its load samples during its jobs
show an idle machine (mean CPU below ``CONFIRM_CPU``).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable

from swarmgym.grading.balance import FLAGGED, shares, unbalanced
from swarmgym.ledger.mapping import INFRA
from swarmgym.models import Finding, LedgerRecord, PoolDevice, Severity

CONFIRM_CPU = 25.0
MIN_JOBS = 2
MAJORITY = 0.5
SEVERITY: dict[str, Severity] = {"starved": "high", "idle": "medium", "underused": "low"}
DEMOTE: dict[Severity, Severity] = {"high": "medium", "medium": "low", "low": "low", "info": "info"}
HINT = {
    "device": "check the device is enabled, reachable and its model loads; if its tasks queue behind its cap, "
              "raise its pool weight (max tasks in flight)",
    "host": "check the host's worker is up and consumes the variant queue; pinned jobs skip it",
}


def _host_cpu(records: Iterable[LedgerRecord]) -> dict[str, float]:
    by_host: dict[str, list[float]] = defaultdict(list)
    for r in records:
        load = (r.data or {}).get("host_load") or {}
        if "cpu_mean" in load:
            by_host[r.host].append(float(load["cpu_mean"]))
    return {h: sum(v) / len(v) for h, v in by_host.items()}


def _pool(rec: LedgerRecord) -> list[PoolDevice]:
    out = []
    for d in (rec.data or {}).get("pool") or []:
        try:
            out.append(PoolDevice.model_validate(d))
        except ValueError:
            continue
    return out


def device_findings(records: list[LedgerRecord], cpu: dict[str, float]) -> tuple[list[Finding], list[dict]]:
    """Each job judged on its own, then per device: in how many of its jobs it was flagged, and which."""
    jobs: dict[str, list[str]] = defaultdict(list)
    flagged: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    dispatched: Counter = Counter()
    host_of: dict[str, str | None] = {}
    for r in records:
        if not r.per_device:
            continue
        dispatched.update(r.per_device)
        for row in shares(dict(r.per_device), _pool(r)):
            if row.state == "disabled":
                continue
            jobs[row.device].append(r.job_id)
            host_of.setdefault(row.device, row.host)
            if row.state in FLAGGED:
                flagged[row.device][row.state].append(r.job_id)
    findings, rows = [], []
    for dev in sorted(jobs):
        states = flagged.get(dev, {})
        ids = sorted({j for v in states.values() for j in v})
        n, total = len(ids), len(jobs[dev])
        share = n / total if total else 0.0
        worst = next((s for s in FLAGGED if states.get(s)), "ok")
        rows.append({"device": dev, "host": host_of.get(dev), "dispatched": dispatched.get(dev, 0), "jobs": total,
                     "flagged_jobs": ids, "share": round(share, 3), "state": worst,
                     "by_state": {s: len(v) for s, v in states.items()}})
        if worst == "ok":
            continue
        severity: Severity = SEVERITY[worst]
        if share < MAJORITY:  # now and then: noted, and a pattern only from a quarter of the jobs on
            severity = "low" if share >= MAJORITY / 2 else "info"
        elif n < MIN_JOBS:
            severity = DEMOTE[severity]
        confirmed = cpu.get(host_of.get(dev) or "", 100.0) < CONFIRM_CPU
        shown = ", ".join(ids[:10]) + (f", … ({n - 10} more)" if n > 10 else "")
        findings.append(Finding(
            severity=severity, dimension="cluster",
            message=f"device {dev} {worst} in {n} of {total} job(s) ({share:.0%}): {shown}"
                    + (" (host idle: confirmed)" if confirmed else ""),
            hint=HINT["device"]))
    return findings, rows


def host_findings(records: list[LedgerRecord], host_weights: dict[str, float] | None,
                  cpu: dict[str, float]) -> tuple[list[Finding], list[dict], bool]:
    jobs_per_host = Counter(r.host for r in records if r.host)
    weights = dict(host_weights or {})
    for h in jobs_per_host:
        weights.setdefault(h, 1.0)
    rows = shares(dict(jobs_per_host), [PoolDevice(id=h, weight=w, host=h) for h, w in weights.items()])
    findings, data = [], []
    enough = sum(jobs_per_host.values()) > MIN_JOBS
    for row in rows:
        host_cpu = cpu.get(row.host or "")
        confirmed = host_cpu is not None and host_cpu < CONFIRM_CPU
        data.append({**row.as_dict(), "cpu_mean": round(host_cpu, 1) if host_cpu is not None else None,
                     "confirmed_idle": confirmed and row.state in SEVERITY})
        if row.state in SEVERITY:
            findings.append(Finding(
                severity=SEVERITY[row.state] if enough else DEMOTE[SEVERITY[row.state]], dimension="cluster",
                message=f"host {row.device} {row.state}: {row.dispatched} jobs vs fair share {row.fair:.1f}"
                        + (f" (load samples idle, cpu {host_cpu:.0f}%: confirmed)" if confirmed else ""),
                hint=HINT["host"]))
    return findings, data, unbalanced(rows)


def campaign_health(records: list[LedgerRecord], host_weights: dict[str, float] | None = None
                    ) -> tuple[list[Finding], dict]:
    """(findings, data) for one campaign's session records."""
    cpu = _host_cpu(records)
    dev_findings, dev_rows = device_findings(records, cpu)
    h_findings, host_rows, hosts_unbalanced = host_findings(records, host_weights, cpu)
    findings = dev_findings + h_findings
    is_unbalanced = hosts_unbalanced or any(f.message.startswith("device ") for f in dev_findings)
    if is_unbalanced:
        findings.append(Finding(severity="info", dimension="cluster", message="campaign work was unbalanced",
                                hint="see the per-host and per-device tables"))
    ran = [r for r in records if r.overall != INFRA]
    functional = sum(r.functional for r in ran)
    data = {"jobs": len(records), "outcomes": dict(Counter(r.overall for r in records)),
            "functional_jobs": functional, "infra_jobs": len(records) - len(ran),
            "functional_rate": round(functional / len(ran), 4) if ran else None,
            "per_device": dev_rows, "per_host": host_rows, "unbalanced": is_unbalanced}
    return findings, data


def campaign_overall(findings: list[Finding]) -> str:
    if any(f.severity == "high" for f in findings):
        return "fail"
    if any(f.severity in ("medium", "low") for f in findings):
        return "partial"
    return "pass"


def idle_names(findings_data: dict) -> list[str]:
    rows = findings_data.get("per_device", []) + findings_data.get("per_host", [])
    return sorted({r["device"] for r in rows if r.get("state") in SEVERITY})
