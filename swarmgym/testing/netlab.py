"""Hosts in network namespaces of their own, for tests and ``benchmarks/chaos.py`` (Linux, root).

``NetLab()`` makes, for each ``add(host)``, a network namespace and a veth pair joining it to this (the
broker's) namespace, each pair its own /30 (``10.213.<n>.1`` here, ``.2`` in the host's namespace).  A host
process started through :meth:`NetLab.wrap` (``ip netns exec``) reaches the broker only over its pair.
:meth:`partition` cuts the pair silently — every packet dropped both ways, no reset, no error, as a pulled
cable or a dead switch looks to TCP — and :meth:`heal` joins it again.  This kernel has no ``netem`` and no tc
actions, so the cut is a ``pfifo`` queue of length 0 on both ends.  :meth:`close` removes every namespace and
pair it made (also at exit).
"""
from __future__ import annotations

import atexit
import os
import subprocess
from dataclasses import dataclass

from swarmgym.core.errors import QueueError


@dataclass
class Link:
    host: str
    ns: str
    outer: str       # the veth end in the broker's namespace
    inner: str       # the end inside the host's namespace
    broker_ip: str   # the broker's address as the host sees it
    host_ip: str


def _ip(*args: str, ns: str | None = None) -> None:
    """``ip ARGS`` (or ``tc ARGS`` when ARGS start with ``tc``), inside namespace ``ns`` if given."""
    cmd = list(args) if args[0] == "tc" else ["ip", *args]
    argv = (["ip", "netns", "exec", ns] if ns else []) + cmd
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise QueueError(f"{' '.join(argv)}: {p.stderr.strip() or p.returncode}")


def available() -> bool:
    """Root, and ``ip``/``tc`` on PATH."""
    from shutil import which

    return os.geteuid() == 0 and bool(which("ip")) and bool(which("tc"))


class NetLab:
    def __init__(self, net: int = 213) -> None:
        self.net = net
        self.tag = f"{os.getpid() % 100000}"
        self.links: dict[str, Link] = {}
        atexit.register(self.close)

    def add(self, host: str) -> Link:
        n = len(self.links) + 1
        link = Link(host, f"sg{self.tag}-{n}", f"sg{self.tag}o{n}", f"sg{self.tag}i{n}", f"10.{self.net}.{n}.1",
                    f"10.{self.net}.{n}.2")
        _ip("netns", "add", link.ns)
        self.links[host] = link
        _ip("link", "add", link.outer, "type", "veth", "peer", "name", link.inner)
        _ip("link", "set", link.inner, "netns", link.ns)
        _ip("addr", "add", f"{link.broker_ip}/30", "dev", link.outer)
        _ip("link", "set", link.outer, "up")
        _ip("addr", "add", f"{link.host_ip}/30", "dev", link.inner, ns=link.ns)
        _ip("link", "set", link.inner, "up", ns=link.ns)
        _ip("link", "set", "lo", "up", ns=link.ns)
        return link

    def wrap(self, host: str, argv: list[str]) -> list[str]:
        """``argv`` run inside ``host``'s namespace."""
        return ["ip", "netns", "exec", self.links[host].ns, *argv]

    def partition(self, host: str) -> None:
        link = self.links[host]
        _ip("tc", "qdisc", "replace", "dev", link.outer, "root", "pfifo", "limit", "0")
        _ip("tc", "qdisc", "replace", "dev", link.inner, "root", "pfifo", "limit", "0", ns=link.ns)

    def heal(self, host: str) -> None:
        link = self.links[host]
        for dev, ns in ((link.outer, None), (link.inner, link.ns)):
            argv = (["ip", "netns", "exec", ns] if ns else []) + ["tc", "qdisc", "del", "dev", dev, "root"]
            subprocess.run(argv, capture_output=True)

    def close(self) -> None:
        for link in list(self.links.values()):
            pids = subprocess.run(["ip", "netns", "pids", link.ns], capture_output=True, text=True).stdout.split()
            for pid in pids:  # nothing may outlive its namespace's removal
                try:
                    os.kill(int(pid), 9)
                except (ProcessLookupError, ValueError):
                    pass
            subprocess.run(["ip", "link", "del", link.outer], capture_output=True)
            subprocess.run(["ip", "netns", "del", link.ns], capture_output=True)
            self.links.pop(link.host, None)
