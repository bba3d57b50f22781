"""psutil host sampler: host CPU, memory, load1 and the swarm's process tree at ``cfg.queue.sample_hz``.

``HostSampler`` is a context manager running a daemon thread; ``.samples`` is a list of
:class:`swarmgym.models.HostSample`.  Samples span the run however short it is: the first comes
``FIRST_INTERVAL`` after the start, the gaps double up to ``1/hz``, and leaving the context (the
swarm exited) always takes a last one.  The swarm's tree is every descendant of ``root_pid`` (the
process running the job) except ``exclude`` (e.g. the orphan guard).  ``sampler_factory(cfg)``
gives the ``sampler=`` argument of :func:`swarmgym.campaigns.job.run_job`.
"""
from __future__ import annotations

import os
import threading
import time

import psutil

from swarmgym.campaigns.hostload import host_load
from swarmgym.models import HostSample

FIRST_INTERVAL = 0.1


class HostSampler:
    def __init__(self, hz: float = 1.0, root_pid: int | None = None, exclude: set[int] | None = None):
        self.interval = 1.0 / hz if hz > 0 else 1.0
        self.root_pid = root_pid or os.getpid()
        self.exclude = set(exclude or ())
        self.samples: list[HostSample] = []
        self._procs: dict[int, psutil.Process] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _tree(self) -> list[psutil.Process]:
        try:
            kids = psutil.Process(self.root_pid).children(recursive=True)
        except psutil.Error:
            return []
        seen = {}
        for p in kids:
            if p.pid in self.exclude:
                continue
            cached = self._procs.get(p.pid)
            seen[p.pid] = cached if cached is not None and cached.is_running() else p
        self._procs = seen
        return list(seen.values())

    def sample(self) -> HostSample:
        cpu = psutil.cpu_percent(None)
        mem = psutil.virtual_memory().percent
        load1 = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        procs = self._tree()
        scpu = srss = 0.0
        for p in procs:
            try:
                with p.oneshot():
                    scpu += p.cpu_percent(None)
                    srss += p.memory_info().rss / 1048576
            except psutil.Error:
                continue
        s = HostSample(ts=time.time(), cpu_percent=cpu, mem_percent=mem, load1=load1,
                       swarm_procs=len(procs), swarm_cpu_percent=round(scpu, 1), swarm_rss_mb=round(srss, 1))
        self.samples.append(s)
        return s

    def _loop(self) -> None:
        wait = min(FIRST_INTERVAL, self.interval)
        while not self._stop.wait(wait):
            try:
                self.sample()
            except Exception:  # a sampler must never break the job
                pass
            wait = min(wait * 2, self.interval)

    def __enter__(self) -> "HostSampler":
        psutil.cpu_percent(None)  # prime the CPU counters
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="host-sampler", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)
        try:
            self.sample()  # the host as the swarm exited
        except Exception:
            pass


def sampler_factory(cfg, *, exclude: set[int] | None = None):
    """``sampler() -> HostSampler`` at the configured rate, rooted at the calling process."""
    hz = cfg.queue.sample_hz
    return lambda: HostSampler(hz, root_pid=os.getpid(), exclude=exclude)


def summarize(samples: list[HostSample]) -> dict[str, float]:
    """Host load over a job (``JobResult.host_load``): one schema, see :mod:`swarmgym.campaigns.hostload`."""
    return host_load(samples)
