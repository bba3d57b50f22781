"""Helpers shared by the exploratory tests: scripted brain replies built from the frozen suite, pool commands."""
from __future__ import annotations

import subprocess

from swarmgym.adapters import sim_command

GOOD_RULING = {"requirements": {"status": "pass", "met": ["all"], "missed": [], "summary": "complete"},
               "code_quality": {"score": 4, "summary": "clean recursive descent"}, "bugs": []}


def checks(spec, *names, **extra):
    out = [c.model_dump(exclude_defaults=True) for c in spec.checks if c.name in names]
    return out + [{"name": k, **v} for k, v in extra.items()]


def opener(spec, *names, prompt=None, **extra):
    return {"app_slug": spec.app_slug, "language": "python", "prompt": prompt or spec.prompt,
            "visible_requirements": ["2^3^2 is 512", "precedence"], "hidden_requirements": ["no eval()"],
            "checks": checks(spec, *names, **extra)}


def sim_pool(cfg, *args) -> str:
    """Run ``swarmgym-sim swarm pool …`` with the environment the sim adapter gives the swarm."""
    from swarmgym.adapters import get_adapter

    env = get_adapter("sim", cfg).env({})
    return subprocess.run([*sim_command(), "swarm", "pool", *args], env=env, capture_output=True, text=True,
                          check=True).stdout
