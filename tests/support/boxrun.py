"""Run a Python script as a swarm in its bubblewrap box, the way every adapter does (``run_process``)."""
from __future__ import annotations

import sys
from pathlib import Path

from swarmgym.adapters.runner import ProcResult, run_process
from swarmgym.config import load_config
from swarmgym.isolation import swarm_policy
from swarmgym.isolation.endpoints import Endpoint, plan_routes, with_keys
from swarmgym.isolation.sandbox import scrubbed_env


def run_swarm_script(tmp_path: Path, script: str, *, endpoints: list[Endpoint] = (), keys: dict | None = None,
                     workspace_mb: int = 64, timeout: float = 60, env: dict | None = None,
                     ws: Path | None = None, **sandbox) -> tuple[ProcResult, Path]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    cfg = load_config(home, environ={}, overrides={"sandbox.backend": "bwrap", "sandbox.workspace_mb": workspace_mb,
                                                   **{f"sandbox.{k}": v for k, v in sandbox.items()}})
    ws = ws or home / "apps" / "app" / "ws"
    ws.mkdir(parents=True, exist_ok=True)
    routes = with_keys(plan_routes(list(endpoints)), keys or {})
    policy = swarm_policy(cfg, ws, adapter="command", routes=routes)
    res = run_process([sys.executable, "-c", script], ws, env if env is not None else scrubbed_env(), timeout,
                      policy=policy, backend="bwrap")
    return res, ws
