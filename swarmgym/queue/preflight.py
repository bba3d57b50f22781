"""Preflight at enqueue: refuse a campaign that cannot run, warn about one that will wait.

A step of the campaign pipeline (``enqueue``), before anything is planned or sent:

* an unknown adapter (``--swarm``) or variant (no host profile and no host serving it): error;
* a pinned host (``--pin-host``) that is not online: error;
* no host online for the variant: a warning, an error with ``--require-workers``;
* a host whose suite hashes differently from the campaign's: a warning naming it (that host takes
  none of the campaign's jobs: it puts them back and stops consuming its variant queue).

"Online" is read from the heartbeats (:mod:`swarmgym.queue.liveness`), not a broadcast: constant
time, and a sleeping host counts as what it is.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from swarmgym.adapters import known_adapters
from swarmgym.core.errors import UsageError
from swarmgym.queue import liveness
from swarmgym.queue.liveness import fmt_secs
from swarmgym.queue.profiles import load_profiles


@dataclass
class Preflight:
    warnings: list[str] = field(default_factory=list)
    online: list[str] = field(default_factory=list)   # hosts serving the variant (or the pinned host)


def known_variants(cfg, hosts: dict[str, dict]) -> set[str]:
    out = {p.variant for p in load_profiles(cfg).values()}
    return out | {str(h["variant"]) for h in hosts.values() if h.get("variant")}


def check(cfg, r, *, swarm: str, variant: str, pin_host: str | None, suite: str, suite_hash: str,
          require_workers: bool = False) -> Preflight:
    """Raise :class:`UsageError` (one line, exit 2) for a campaign that cannot run; return warnings."""
    if swarm not in known_adapters():
        raise UsageError(f"--swarm {swarm!r}: unknown adapter; expected one of {', '.join(known_adapters())}")
    hosts = liveness.hosts(r, cfg.queue.dead_host_secs) if r is not None else {}
    hosts = {h: i for h, i in hosts.items() if not str(i.get("node", "")).startswith("coordinator@")}
    if variant not in known_variants(cfg, hosts):
        raise UsageError(f"--variant {variant!r}: no host profile and no host serves it "
                         f"(known: {', '.join(sorted(known_variants(cfg, hosts)))})")
    out = Preflight()
    if pin_host:
        info = hosts.get(pin_host)
        if info is None:
            raise UsageError(f"--pin-host {pin_host!r}: no such host online (see `swarmgym workers`)")
        if info["dead"]:
            raise UsageError(f"--pin-host {pin_host!r}: host is not online (silent {fmt_secs(info['silent'])})")
        out.online = [pin_host]
    else:
        out.online = sorted(h for h, i in hosts.items() if i.get("variant") == variant and not i["dead"])
        if not out.online:
            msg = f"--variant {variant}: no host online serves it; the jobs will wait in queue variant.{variant}"
            if require_workers:
                raise UsageError(msg + " (--require-workers)")
            out.warnings.append(msg)
    for h in out.online:
        have = (hosts[h].get("suites") or {}).get(suite)
        if have is not None and have != suite_hash:
            out.warnings.append(f"host {h}: suite {suite} hashes to {have}, this campaign to {suite_hash}: "
                                "it takes none of its jobs")
    return out


def coordinator_alive(cfg, r) -> tuple[bool, str]:
    """(alive, why not): a coordinator registered and beating within ``dead_host_secs``."""
    state, why = coordinator_state(cfg, r)
    return state == "alive", why


def coordinator_state(cfg, r) -> tuple[str, str]:
    """(``alive`` | ``silent`` | ``unknown``, why not alive): ``unknown`` when no coordinator beats at all
    (none runs, or Redis just lost the beats: a restarted Redis hears from it again within a beat)."""
    hosts = liveness.hosts(r, cfg.queue.dead_host_secs)
    coords = {h: i for h, i in hosts.items() if str(i.get("node", "") or h).startswith("coordinator@")}
    if not coords:
        stopped = [(float(i["stopped"]), h) for h, i in liveness.registrations(r).items()
                   if h.startswith("coordinator@") and i.get("stopped")]
        if stopped:
            at, node = max(stopped)
            return "silent", f"the coordinator ({node}) stopped {fmt_secs(max(0.0, liveness.broker_now(r) - at))} ago"
        return "unknown", "none is running on this broker (`swarmgym worker --coordinator`)"
    live = [h for h, i in coords.items() if not i["dead"]]
    if live:
        return "alive", ""
    _, i = min(coords.items(), key=lambda kv: kv[1]["silent"])
    return "silent", f"the coordinator ({i.get('node')}) has been silent for {fmt_secs(i['silent'])}"
