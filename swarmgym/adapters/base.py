"""What every swarm adapter shares: run argv as a subprocess and turn it into a RunOutcome.

The report comes from stdout (tolerant parse); the outcome names this run's newest ``.swarm/run-*.jsonl``,
which collect reads once (:func:`swarmgym.collect.collect`): if stdout held no report, the tasks are
rebuilt there from its ``task_completed`` events.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, Mapping, Protocol, Sequence

from swarmgym.adapters.runner import TAIL_CAP, run_process
from swarmgym.collect.events import newest_log
from swarmgym.collect.report import parse_report
from swarmgym.isolation import resolve, swarm_policy
from swarmgym.isolation.budget import workspace_breach
from swarmgym.isolation.sandbox import scrubbed_env
from swarmgym.models import RunOutcome


class Adapter(Protocol):
    name: str

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
            read_only: Sequence[str | Path] = (), writable: Sequence[str | Path] = ()) -> RunOutcome:
    """Run the swarm in its box and build its RunOutcome (raises AdapterError only if it cannot start).

    The box (``cfg.sandbox.backend``) lets the swarm write the workspace and ``writable`` (its own
    state folders) and read ``read_only`` besides the system's runtime; nothing else is there.  A cap
    the box hit (memory) or the workspace's size budget (``sandbox.workspace_mb``) is named in
    ``limits_hit``."""
    ws = Path(workspace)
    ws.mkdir(parents=True, exist_ok=True)
    backend = resolve(cfg.sandbox.backend, adapter) if cfg is not None else "none"
    policy = swarm_policy(cfg, ws, adapter=adapter, read_only=read_only, writable=writable) if cfg is not None else None
    res = run_process(argv, ws, env, timeout, policy=policy, backend=backend)
    limits_hit: list[str] = []
    if res.oom_kills:
        limits_hit.append(f"the swarm exceeded its memory cap ({res.ram_mb} MB, sandbox.swarm_ram_mb): the kernel "
                          f"killed {res.oom_kills} process(es) of its box")
    over = workspace_breach(ws, cfg.sandbox.workspace_mb) if cfg is not None else None
    if over:
        limits_hit.append(over)
    problems: list[str] = []
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
                      problems=problems, limits_hit=limits_hit)


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
