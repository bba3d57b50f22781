"""Campaign-level monitor: how a campaign's work spread over devices and hosts.

Per device: tasks dispatched summed over every job of the campaign, against weighted fair share
(:mod:`swarmgym.balance`: starved = 0, idle < 5 %, underused < 50 %).  Per host: jobs run per
host against the host's fair share (weight = its worker concurrency; every host consuming the
campaign's queue counts, so a host that got nothing is starved).  A flagged host is *confirmed
idle* when its psutil samples during its jobs show an idle machine (mean CPU below
``CONFIRM_CPU``), i.e. capacity really was wasted, not taken by something else.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable

from swarmgym.balance import shares, unbalanced
from swarmgym.models import Finding, LedgerRecord, PoolDevice, Severity

CONFIRM_CPU = 25.0
SEVERITY: dict[str, Severity] = {"starved": "high", "idle": "medium", "underused": "low"}
HINT = {
    "device": "check the device is enabled and reachable; raise its pool weight or fix its endpoint",
    "host": "check the host's worker is up and consumes the variant queue; pinned jobs skip it",
}


def _host_cpu(records: Iterable[LedgerRecord]) -> dict[str, float]:
    by_host: dict[str, list[float]] = defaultdict(list)
    for r in records:
        load = (r.data or {}).get("host_load") or {}
        if "cpu_mean" in load:
            by_host[r.host].append(float(load["cpu_mean"]))
    return {h: sum(v) / len(v) for h, v in by_host.items()}


def _pool(records: Iterable[LedgerRecord]) -> list[PoolDevice]:
    latest: dict[str, PoolDevice] = {}
    for r in records:
        for d in (r.data or {}).get("pool") or []:
            try:
                latest[d["id"]] = PoolDevice.model_validate(d)
            except (KeyError, ValueError):
                continue
    return list(latest.values())


def campaign_health(records: list[LedgerRecord], host_weights: dict[str, float] | None = None
                    ) -> tuple[list[Finding], dict]:
    """(findings, data) for one campaign's session records."""
    findings: list[Finding] = []
    cpu = _host_cpu(records)
    # devices
    per_device: Counter = Counter()
    for r in records:
        per_device.update(r.per_device or {})
    dev_rows = shares(dict(per_device), _pool(records)) if per_device else []
    for row in dev_rows:
        if row.state in SEVERITY:
            confirmed = row.host is not None and cpu.get(row.host, 100.0) < CONFIRM_CPU
            findings.append(Finding(
                severity=SEVERITY[row.state], dimension="cluster",
                message=f"device {row.device} {row.state}: {row.dispatched} tasks vs fair share {row.fair:.1f}"
                        + (" (host idle: confirmed)" if confirmed else ""),
                hint=HINT["device"]))
    # hosts
    jobs_per_host = Counter(r.host for r in records if r.host)
    weights = dict(host_weights or {})
    for h in jobs_per_host:
        weights.setdefault(h, 1.0)
    host_rows = shares(dict(jobs_per_host), [PoolDevice(id=h, weight=w, host=h) for h, w in weights.items()])
    host_data = []
    for row in host_rows:
        confirmed = row.host in cpu and cpu[row.host] < CONFIRM_CPU
        host_data.append({**row.as_dict(), "cpu_mean": round(cpu[row.host], 1) if row.host in cpu else None,
                          "confirmed_idle": confirmed and row.state in SEVERITY})
        if row.state in SEVERITY:
            findings.append(Finding(
                severity=SEVERITY[row.state], dimension="cluster",
                message=f"host {row.device} {row.state}: {row.dispatched} jobs vs fair share {row.fair:.1f}"
                        + (f" (load samples idle, cpu {cpu[row.host or '']:.0f}%: confirmed)" if confirmed else ""),
                hint=HINT["host"]))
    is_unbalanced = unbalanced(dev_rows) or unbalanced(host_rows)
    if is_unbalanced:
        findings.append(Finding(severity="info", dimension="cluster", message="campaign work was unbalanced",
                                hint="see the per-host and per-device tables"))
    outcomes = Counter(r.overall for r in records)
    data = {"jobs": len(records), "outcomes": dict(outcomes), "functional": sum(r.functional for r in records),
            "per_device": [row.as_dict() for row in dev_rows], "per_host": host_data,
            "unbalanced": is_unbalanced}
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
