"""The tweaker: turn a fleet finding into a scope-guarded knob change, apply it, re-run.

A proposal comes from the brain (role ``tweaker``) or from a model-free rule (raise a starved,
idle or underused device's weight; enable a disabled one).  Every change passes
:func:`swarmgym.explore.scope.guard`; pool changes are applied with
``<binary> swarm pool weight|enable|disable`` as a subprocess in the swarm's environment, the two
env knobs become env overrides for the re-run, the other allowed knobs are recorded as
"proposed, applied manually".
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Sequence

from pydantic import BaseModel, Field

from swarmgym.adapters import get_adapter
from swarmgym.brains import ask_json
from swarmgym.config import Config
from swarmgym.explore.monitor import MonitorReport
from swarmgym.explore.scope import guard
from swarmgym.grading.balance import concurrency
from swarmgym.models import PoolDevice


class KnobChange(BaseModel):
    key: str
    value: Any


class Proposal(BaseModel):
    changes: list[KnobChange] = Field(min_length=1)
    rationale: str = ""
    source: str = "rule"


def rule_proposal(report: MonitorReport, pool: list[PoolDevice]) -> Proposal | None:
    """Model-free: enable a disabled flagged device; raise a flagged device's cap on tasks in flight
    (goose's weight, an integer >= 1) to at least the largest enabled cap, or by one."""
    by_id = {p.id: p for p in pool}
    top = max((concurrency(p.weight) for p in pool if p.enabled), default=1)
    changes, why = [], []
    for dev in report.flagged:
        p = by_id.get(dev, PoolDevice(id=dev))
        if not p.enabled:
            changes.append(KnobChange(key=f"pool.{dev}.enabled", value=True))
        cap = concurrency(p.weight)
        new = max(top, cap + 1)
        changes.append(KnobChange(key=f"pool.{dev}.weight", value=new))
        state = "starved" if dev in report.starved else "idle" if dev in report.idle else "underused"
        why.append(f"{dev} was {state} at weight {cap}; raise its cap on tasks in flight to {new}")
    if not changes:
        return None
    return Proposal(changes=changes, rationale="; ".join(why), source="rule")


TWEAK_SYSTEM = """You tune a coding swarm's fleet (goose local-edition). You may only change these knobs:
pool.<device>.weight (an integer >= 1: the most tasks in flight on that device at once; goose hands each
ready task to the least-loaded device, so a weight is a cap, not a share), pool.<device>.enabled (true/false),
planner_model, worker_max_turns,
max_attempts, env.GOOSE_LOCAL_CONTEXT_CAP, env.GOOSE_MAX_BACKGROUND_TASKS (positive integers).
Any other knob will be rejected. Propose the smallest change that fixes the fleet problem, with a rationale."""


def brain_proposal(brain, cfg: Config, report: MonitorReport, pool: list[PoolDevice]) -> Proposal:
    user = json.dumps({"problem": report.line(), "findings": [f.model_dump() for f in report.findings],
                       "per_device": report.per_device, "devices": report.devices,
                       "pool": [p.model_dump(include={"id", "weight", "enabled", "model_id"}) for p in pool]}, indent=1)
    p = ask_json(brain, "tweaker", TWEAK_SYSTEM, "The fleet monitor found:\n" + user +
                 '\nReply as {"changes": [{"key": ..., "value": ...}], "rationale": ...}.',
                 Proposal, cfg.brain.max_reasks)
    p.source = brain.name
    return p


def pool_runner(adapter: str, cfg: Config, env: dict[str, str] | None) -> tuple[list[str], dict[str, str]] | None:
    """(``<binary> swarm pool`` argv, env) for ``adapter``; None if that swarm has no pool command."""
    ad = get_adapter(adapter, cfg)
    if not hasattr(ad, "pool_argv") or not hasattr(ad, "env"):
        return None
    return list(ad.pool_argv()), ad.env(env)


def pool_command(pool_argv: list[str], key: str, value: Any) -> list[str]:
    """``<binary> swarm pool weight DEV N`` (N an integer: goose rejects 2.5) or ``enable|disable DEV``."""
    dev, _, field = key[5:].rpartition(".")
    if field == "weight":
        return [*pool_argv, "weight", dev, str(int(value))]
    return [*pool_argv, "enable" if value else "disable", dev]


def apply(proposal: Proposal, cfg: Config, workspace: Path, *, adapter: str, env: dict[str, str] | None = None,
          pool: Sequence[PoolDevice] = ()) -> dict[str, Any]:
    """Apply what the guard allows; return {applied, rejected, manual, env_overrides, commands}."""
    out: dict[str, Any] = {"proposal": proposal.model_dump(), "applied": [], "rejected": [], "manual": [],
                           "env_overrides": {}, "commands": []}
    known = {p.id for p in pool}
    runner = None
    if any(c.key.startswith("pool.") for c in proposal.changes):
        try:
            runner = pool_runner(adapter, cfg, env)
        except Exception as e:  # binary missing etc.: the changes stay proposals
            out["problems"] = [f"{type(e).__name__}: {e}"]
    for ch in proposal.changes:
        d = guard(ch.key, ch.value)
        if not d.allowed:
            out["rejected"].append({"key": d.key, "value": d.value, "reason": d.reason})
            continue
        if d.how == "manual":
            out["manual"].append({"key": d.key, "value": d.value, "note": "proposed, applied manually"})
        elif d.how == "env":
            out["env_overrides"][d.key[4:]] = str(d.value)
            out["applied"].append({"key": d.key, "value": d.value, "via": "env override on the re-run"})
        else:
            dev = d.key[5:].rpartition(".")[0]
            if known and dev not in known:
                out["rejected"].append({"key": d.key, "value": d.value, "reason": f"no device {dev!r} in the pool"})
                continue
            if runner is None:
                out["manual"].append({"key": d.key, "value": d.value,
                                      "note": f"adapter {adapter} has no pool command; apply manually"})
                continue
            argv = pool_command(runner[0], d.key, d.value)
            try:
                r = subprocess.run(argv, cwd=str(workspace), env=runner[1], capture_output=True,
                                   text=True, timeout=120, start_new_session=True)
                rec: dict[str, Any] = {"argv": argv, "exit_code": r.returncode, "output": (r.stdout + r.stderr)[-500:]}
            except (OSError, subprocess.TimeoutExpired) as e:
                rec = {"argv": argv, "exit_code": None, "output": f"{type(e).__name__}: {e}"}
            out["commands"].append(rec)
            if rec["exit_code"] == 0:
                out["applied"].append({"key": d.key, "value": d.value, "via": " ".join(argv[-4:] if "weight" in argv else argv[-3:])})
            else:
                out["rejected"].append({"key": d.key, "value": d.value,
                                        "reason": f"pool command failed: {rec['output'][-200:]}"})
    return out
