"""One ``host_load`` schema for every job, whatever its length (``JobResult.host_load``).

Built from the psutil samples taken while the swarm ran (first at its start, last when it
exited); the same keys every time, ``{}`` only when the job had no sampler at all.
"""
from __future__ import annotations

import statistics

from swarmgym.models import HostSample

KEYS = ("samples", "span_secs", "cpu_mean", "cpu_max", "mem_max", "load1_mean", "load1_max",
        "swarm_cpu_mean", "swarm_rss_max_mb", "swarm_procs_max")


def host_load(samples: list[HostSample]) -> dict[str, float]:
    """Means and peaks of the host over the swarm's run."""
    if not samples:
        return {}
    cpu = [s.cpu_percent for s in samples]
    load = [s.load1 for s in samples]
    return {
        "samples": float(len(samples)),
        "span_secs": round(samples[-1].ts - samples[0].ts, 3),
        "cpu_mean": round(statistics.fmean(cpu), 1),
        "cpu_max": round(max(cpu), 1),
        "mem_max": round(max(s.mem_percent for s in samples), 1),
        "load1_mean": round(statistics.fmean(load), 2),
        "load1_max": round(max(load), 2),
        "swarm_cpu_mean": round(statistics.fmean(s.swarm_cpu_percent for s in samples), 1),
        "swarm_rss_max_mb": round(max(s.swarm_rss_mb for s in samples), 1),
        "swarm_procs_max": float(max(s.swarm_procs for s in samples)),
    }
