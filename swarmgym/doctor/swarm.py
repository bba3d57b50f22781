"""Doctor checks of the swarm: its binary and version, and what it builds with (goose's pool, or the
simulator's fleet file).

goose keeps its pool in the ``swarm:`` block of ``config.yaml`` in its config folder
(goose local-edition ``crates/goose-cli/src/commands/swarm.rs``: ``SwarmConfig {endpoint, planner_model,
devices[{id, model_id, weight, enabled, instances, host}]}``, ``SWARM_CONFIG_KEY = "swarm"``; the endpoint
defaults to ``http://localhost:1234``, an LM Studio server).  A pool endpoint answers when its
OpenAI-compatible ``/v1/models`` does.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import yaml

from swarmgym.adapters import get_adapter
from swarmgym.adapters.provenance import binary_version
from swarmgym.collect.goose_paths import goose_dir
from swarmgym.core.errors import SwarmgymError
from swarmgym.doctor.base import Finding, Probe, check

GOOSE_DEFAULT_ENDPOINT = "http://localhost:1234"
ENDPOINT_TIMEOUT = 3.0
SWARM_FIX = {"goose": "set swarm.binary (SWARMGYM_SWARM_BINARY) to your goose local-edition build, or try "
                      "--swarm sim (the simulator)",
             "command": "set swarm.command in config.yaml to an argv whose first item is an installed program",
             "sim": "reinstall swarmgym (pip install -e .): swarmgym-sim ships with it"}


@check("swarm")
def swarm(p: Probe) -> Finding:
    try:
        binary = get_adapter(p.adapter, p.cfg).binary()
    except SwarmgymError as e:
        return Finding("swarm", "fail", f"{p.adapter}: {e}", SWARM_FIX.get(p.adapter, ""))
    version = binary_version(binary)
    shown = " ".join(binary)
    if version is None:
        return Finding("swarm", "fail", f"{p.adapter}: {shown} did not answer --version",
                       f"run `{shown} --version` by hand to see why; " + SWARM_FIX.get(p.adapter, ""))
    return Finding("swarm", "pass", f"{p.adapter}: {shown} ({version})")


def goose_pool(env: dict[str, str]) -> tuple[Path, dict[str, Any]]:
    """(goose's config.yaml for ``env``, its ``swarm:`` block); ValueError when unreadable."""
    path = goose_dir("config", env) / "config.yaml"
    data = yaml.safe_load(path.read_text()) if path.is_file() else None
    block = (data or {}).get("swarm") if isinstance(data, dict) else None
    if isinstance(block, str):  # goose also accepts the block as a JSON/YAML string
        block = yaml.safe_load(block)
    if block is not None and not isinstance(block, dict):
        raise ValueError(f"{path}: the swarm: block is not a mapping")
    return path, block or {}


def models_url(endpoint: str) -> str:
    base = endpoint.rstrip("/")
    return base + "/models" if base.endswith("/v1") else base + "/v1/models"


def endpoint_models(endpoint: str) -> list[str]:
    """The model ids the endpoint serves; OSError-like httpx errors propagate."""
    import httpx

    r = httpx.get(models_url(endpoint), timeout=ENDPOINT_TIMEOUT)
    r.raise_for_status()
    data = r.json()
    return [str(m.get("id")) for m in (data.get("data") or []) if isinstance(m, dict)] if isinstance(data, dict) else []


def _sim_pool(p: Probe, env: dict[str, str]) -> Finding:
    """The simulator's pool, as ``swarmgym-sim swarm pool show --json`` reports it (the fleet file plus the
    pool knobs a shell set): no model server behind it."""
    argv = [*get_adapter("sim", p.cfg).binary(), "swarm", "pool", "show", "--json"]
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
    try:
        devices = json.loads(r.stdout) if r.returncode == 0 else None
    except ValueError:
        devices = None
    if not isinstance(devices, list):
        why = (r.stderr.strip().splitlines() or ["no JSON on stdout"])[-1]
        return Finding("pool", "fail", f"simulated pool: {why}", "fix the fleet file (SWARMGYM_SIM_FLEET) or "
                                                                 "its pool state (swarmgym-sim swarm pool …)")
    on = [d.get("id") for d in devices if isinstance(d, dict) and d.get("enabled")]
    if not on:
        return Finding("pool", "fail", f"simulated pool: none of {len(devices)} devices is enabled",
                       "swarmgym-sim swarm pool enable DEVICE")
    return Finding("pool", "pass", f"simulated pool: {len(on)} of {len(devices)} devices enabled "
                                   "(no model server needed)")


@check("pool")
def pool(p: Probe) -> Finding:
    if p.adapter == "command":
        return Finding("pool", "skip", "the command swarm has no pool", needed_for="the goose swarm")
    env = get_adapter(p.adapter, p.cfg).env({})
    if p.adapter == "sim":
        return _sim_pool(p, env)
    try:
        path, block = goose_pool(env)
    except (OSError, ValueError, yaml.YAMLError) as e:
        return Finding("pool", "fail", f"goose config: {e}", "fix goose's config.yaml (goose configure)",
                       needed_for="the goose swarm")
    devices = [d for d in block.get("devices") or [] if isinstance(d, dict)]
    enabled = [d for d in devices if d.get("enabled", True)]
    if not path.is_file() or not enabled:
        what = "no goose config" if not path.is_file() else "no enabled device in its swarm: pool"
        return Finding("pool", "fail", f"{path}: {what}",
                       "add devices with `goose swarm pool add …` (goose local-edition), then enable them",
                       needed_for="the goose swarm")
    endpoint = str(block.get("endpoint") or GOOSE_DEFAULT_ENDPOINT)
    try:
        served = endpoint_models(endpoint)
    except Exception as e:  # noqa: BLE001 - connection refused, timeout, HTTP error, not JSON: one line
        return Finding("pool", "fail", f"pool endpoint {endpoint} ({path}) does not answer: {type(e).__name__}",
                       "start the model server (LM Studio: `lms server start`) or fix swarm.endpoint in "
                       "goose's config.yaml", needed_for="the goose swarm")
    missing = [str(d.get("model_id")) for d in enabled if served and d.get("model_id") not in served]
    found = (f"pool endpoint {endpoint} answers ({len(served)} models); {len(enabled)} enabled device(s) in {path}"
             + (f"; not listed by the endpoint: {', '.join(missing)}" if missing else ""))
    if missing:
        return Finding("pool", "fail", found, "load those models on the endpoint (lms load MODEL) or disable "
                                              "their devices (goose swarm pool disable DEVICE)",
                       needed_for="the goose swarm")
    return Finding("pool", "pass", found, needed_for="the goose swarm")
