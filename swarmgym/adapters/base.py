"""What every swarm adapter shares: run argv as a subprocess and turn it into a RunOutcome.

The report comes from stdout (tolerant parse); the outcome names this run's newest ``.swarm/run-*.jsonl``,
which collect reads once (:func:`swarmgym.collect.collect`): if stdout held no report, the tasks are
rebuilt there from its ``task_completed`` events.
"""
from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Literal, Mapping, Protocol, Sequence
from urllib.parse import urlsplit

from swarmgym.adapters.runner import TAIL_CAP, ProcResult, run_process
from swarmgym.collect.events import newest_log
from swarmgym.collect.report import parse_report
from swarmgym.core.errors import AdapterError
from swarmgym.isolation import resolve, swarm_policy
from swarmgym.isolation.budget import workspace_breach
from swarmgym.isolation.endpoints import LOOPBACK_NAMES, Endpoint, Route, parse_endpoint, plan_routes, with_keys
from swarmgym.isolation.sandbox import scrubbed_env
from swarmgym.models import NetworkUse, RunOutcome


class Adapter(Protocol):
    name: str
    replays_seed: bool   # the same seed, flags and build give the same run (the simulator): repeats are no new evidence

    def run(self, prompt: str, workspace: Path | str, *, mcp: Sequence[str] = (),
            env: Mapping[str, str] | None = None, timeout: float | None = None) -> RunOutcome: ...

    def preflight(self, variant: str) -> None:
        """Raise a one-line SwarmgymError if this swarm cannot run ``variant`` at all."""

    def job_env(self, variant: str, seed: int, suite: str | None = None) -> dict[str, str]:
        """Extra environment that tells this swarm which variant, seed and suite a job asked for (the
        simulator needs them; a real swarm's variant is its deployment, so it adds nothing)."""

    def binary(self) -> list[str]:
        """The swarm's executable (an argv prefix); a one-line AdapterError when it is missing."""

    def env(self, env: Mapping[str, str] | None) -> dict[str, str]:
        """The environment the swarm process gets: this one's, scrubbed, plus ``swarm.env`` and ``env``."""


def merged_env(*layers: Mapping[str, str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for layer in layers:
        out.update({str(k): str(v) for k, v in (layer or {}).items()})
    return out


def execute(adapter: str, argv: list[str], workspace: Path | str, env: dict[str, str], timeout: float, *,
            has_fleet_log: bool = True, sessions_db: str | None = None, cfg=None,
            read_only: Sequence[str | Path] = (), writable: Sequence[str | Path] = (),
            endpoints: Sequence[Endpoint] = (), keys: Mapping[str, str] | None = None) -> RunOutcome:
    """Run the swarm in its box and build its RunOutcome (raises AdapterError only if it cannot start).

    The box (``cfg.sandbox.backend``) lets the swarm write the workspace and ``writable`` (its own
    state folders) and read ``read_only`` besides the system's runtime; nothing else is there.  Its
    network reaches only ``endpoints`` (plus :func:`box_endpoints` of the config), each key an endpoint
    names added on the host from ``keys`` or this process's environment.  A cap the box hit (memory,
    the disk budget of its writable folders, ``sandbox.workspace_mb``) is named in ``limits_hit``."""
    ws = Path(workspace)
    ws.mkdir(parents=True, exist_ok=True)
    backend = resolve(cfg.sandbox.backend, adapter) if cfg is not None else "none"
    routes = box_routes(cfg, endpoints, keys) if cfg is not None and backend != "none" else []
    if backend == "bwrap":  # a key the forwarder adds never enters the box
        env = {k: v for k, v in env.items() if k not in {r.endpoint.key_env for r in routes}}
    policy = (swarm_policy(cfg, ws, adapter=adapter, read_only=read_only, writable=writable, routes=routes)
              if cfg is not None else None)
    res = run_process(argv, ws, env, timeout, policy=policy, backend=backend)
    limits_hit: list[str] = []
    if res.oom_kills:
        limits_hit.append(f"the swarm exceeded its memory cap ({res.ram_mb} MB, sandbox.swarm_ram_mb): the kernel "
                          f"killed {res.oom_kills} process(es) of its box")
    limits_hit += res.limits_hit
    over = workspace_breach(ws, cfg.sandbox.workspace_mb) if cfg is not None and not res.disk_budget else None
    if over:
        limits_hit.append(over)
    network = _network(routes, res) if backend == "bwrap" else None
    problems: list[str] = list(res.problems)
    if res.timed_out:
        problems.append(f"run: timed out after {timeout:g}s; process group killed (exit 124)")
    try:
        report, report_problems = parse_report(res.stdout)
    except Exception as e:  # noqa: BLE001 - whatever the swarm printed, its job is graded and recorded
        report, report_problems = None, [f"report: stdout unreadable ({type(e).__name__}); no RunReport used"]
    source: Literal["stdout", "events", "none"] = "stdout" if report is not None else "none"
    log_path = newest_log(ws, since=res.started - 1.0) if has_fleet_log else None
    problems += report_problems
    stdout_tail = res.stdout[-TAIL_CAP:]
    return RunOutcome(adapter=adapter, argv=[_short(a) for a in argv], exit_code=res.exit_code, report=report,
                      report_source=source, stdout_tail=stdout_tail, stderr_tail=res.stderr_tail,
                      event_log=str(log_path) if log_path else None, wall_secs=res.wall_secs,
                      timed_out=res.timed_out, has_fleet_log=has_fleet_log, sessions_db=sessions_db,
                      problems=problems, limits_hit=limits_hit, network=network)


def box_endpoints(cfg, own: Sequence[Endpoint] = ()) -> list[Endpoint]:
    """The model endpoints a job's swarm box may reach: the swarm's own (goose's pool endpoint),
    ``swarm.endpoints``, and ``brain.local_endpoint`` when the brain is the local model."""
    eps = list(own)
    eps += [parse_endpoint(e, f"swarm.endpoints[{n}]") for n, e in enumerate(cfg.swarm.endpoints)]
    if cfg.brain.provider == "local":
        eps.append(parse_endpoint(cfg.brain.local_endpoint, "brain.local_endpoint"))
    return eps


def box_routes(cfg, own: Sequence[Endpoint] = (), keys: Mapping[str, str] | None = None) -> list[Route]:
    """:func:`box_endpoints` as the box sees them, with their keys (host side only); AdapterError in one
    line when they cannot be given to the box, or one of them is the broker."""
    try:
        routes = plan_routes(box_endpoints(cfg, own))
    except ValueError as e:
        raise AdapterError(str(e)) from None
    for url in filter(None, (cfg.queue.broker_url, cfg.queue.result_backend)):
        broker = urlsplit(url)
        for r in routes:
            if r.endpoint.port == broker.port and _same_host(r.endpoint.host, broker.hostname or ""):
                raise AdapterError(f"{r.endpoint.source}: {r.endpoint.url} is the broker (queue.broker_url); "
                                   "a swarm's box never reaches the broker")
    lookup = {**os.environ, **(keys or {})}
    return with_keys(routes, lookup)


def _same_host(a: str, b: str) -> bool:
    def loop(h: str) -> bool:
        try:
            return ipaddress.ip_address(h).is_loopback
        except ValueError:
            return h.lower() in LOOPBACK_NAMES
    return a.lower() == b.lower() or (loop(a) and loop(b))


def _network(routes: list[Route], res: ProcResult) -> NetworkUse:
    t = res.traffic
    return NetworkUse(endpoints=[r.endpoint.shown() for r in routes], bytes_sent=t.sent if t else 0,
                      bytes_received=t.received if t else 0, connections=t.connections if t else 0,
                      failed=t.failed if t else 0)


def _short(arg: str, cap: int = 4000) -> str:
    return arg if len(arg) <= cap else arg[:cap] + "…"


def base_env(cfg=None) -> dict[str, str]:
    """The swarm's environment: this process's, less every secret except ``swarm.pass_secrets``.

    The swarm runs model-written shell commands, so it gets no API key it does not need
    (``ANTHROPIC_API_KEY``, broker passwords, Flower logins stay here).
    """
    extra = set(cfg.secrets) if cfg else set()
    env = scrubbed_env(extra)
    for name in (cfg.swarm.pass_secrets if cfg else ()):
        if name in os.environ:
            env[name] = os.environ[name]
    return env
