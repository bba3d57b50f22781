"""The simulator ``swarmgym-sim``, run as a real subprocess exactly like goose.

swarmgym's own runs never touch the user's real goose folders: unless the caller sets
``GOOSE_PATH_ROOT`` (in ``swarm.env`` or the call's env), the sim's pristine goose root is
``<home>/.sim-goose``; like goose, each run then gets a fresh per-job root with a copy of that
root's config (:mod:`swarmgym.adapters.goose`), and keeps its sessions there exactly where goose
would (:mod:`swarmgym.collect.goose_paths`).  The bare ``swarmgym-sim``, run by hand with
nothing set, uses goose's default folders like goose does.  It looks suites up in
``cfg.suites_dir`` (``SWARMGYM_SUITES_DIR``).

``swarm.timeout`` is wall-clock time for goose; for the simulator it is *simulated* time: at
``SWARMGYM_SIM_TIME_SCALE`` real seconds per simulated minute a hung run is killed once the timeout
has passed on the simulated clock (plus a start-up grace), not after the full real timeout.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from swarmgym.adapters.base import base_env, merged_env
from swarmgym.adapters.goose import GooseAdapter
from swarmgym.collect.goose_config import pool_endpoint
from swarmgym.core.errors import UsageError
from swarmgym.isolation.endpoints import Endpoint
from swarmgym.models import RunOutcome
from swarmgym.sim.fleet import fleet_path, load_fleet, pool_path

#: real seconds a simulated run may need beyond its simulated time (interpreter start-up, staging)
START_GRACE_SECS = 60.0


def sim_command() -> list[str]:
    """The ``swarmgym-sim`` script next to this interpreter, else ``python -m swarmgym.sim``."""
    exe = Path(sys.executable).parent / "swarmgym-sim"
    if exe.is_file() and os.access(exe, os.X_OK):
        return [str(exe)]
    return [sys.executable, "-m", "swarmgym.sim"]


def scaled_timeout(timeout: float, env: Mapping[str, str]) -> float:
    """The real-time limit for a simulated run whose (simulated) limit is ``timeout`` seconds."""
    raw = env.get("SWARMGYM_SIM_TIME_SCALE")
    try:
        scale = float(raw) if raw not in (None, "") else load_fleet(env).time_scale
    except Exception:  # noqa: BLE001 - a bad value is the sim's to report, with its one-line error
        return timeout
    if scale < 0:
        return timeout
    return min(timeout, timeout / 60.0 * scale + START_GRACE_SECS)


class SimAdapter(GooseAdapter):
    name = "sim"
    replays_seed = True  # a seed fixes every draw: a repeated (spec, seed, flags) run is the same run

    def binary(self) -> list[str]:
        return sim_command()

    def preflight(self, variant: str) -> None:
        fleet = load_fleet({**os.environ, **self.cfg.swarm.env})
        if variant not in fleet.variants:
            raise UsageError(f"--variant {variant!r}: the simulator's fleet has no such variant profile; "
                             f"known: {', '.join(fleet.variants)} (fleet file: SWARMGYM_SIM_FLEET)")

    def job_env(self, variant: str, seed: int, suite: str | None = None) -> dict[str, str]:
        out = {"SWARMGYM_SIM_VARIANT": variant, "SWARMGYM_SIM_SEED": str(seed)}
        folder = Path(self.cfg.suites_dir) / suite if suite else None
        if folder is not None and (folder / "suite.yaml").is_file():  # suites share prompts: play this one's apps
            out["SWARMGYM_SUITES_DIR"] = str(folder)
        return out

    def env(self, env: Mapping[str, str] | None) -> dict[str, str]:
        caller = merged_env(self.cfg.swarm.env, env)
        full = merged_env(base_env(self.cfg), caller)
        # the pool file a shell's `swarmgym-sim swarm pool …` edits (same env, same function), even though
        # this run's sessions go under the home's own goose root
        full.setdefault("SWARMGYM_SIM_POOL", str(pool_path(full)))
        full["GOOSE_PATH_ROOT"] = caller.get("GOOSE_PATH_ROOT") or str(Path(self.cfg.home) / ".sim-goose")
        full["SWARMGYM_SUITES_DIR"] = caller.get("SWARMGYM_SUITES_DIR") or str(self.cfg.suites_dir)
        return full

    def run(self, prompt: str, workspace: Path | str, *, mcp: Sequence[str] = (),
            env: Mapping[str, str] | None = None, timeout: float | None = None) -> RunOutcome:
        limit = timeout or self.cfg.swarm.timeout
        return super().run(prompt, workspace, mcp=mcp, env=env, timeout=scaled_timeout(limit, self.env(env)))

    def box_paths(self, argv: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
        """The simulator is swarmgym's own code (a trusted adapter: its box also reads the package and
        the suites, :data:`swarmgym.isolation.TRUSTED_ADAPTERS`); besides, it reads the suite folder
        it plays, its fleet file and pool file, and writes only its per-job goose state."""
        ro = [env["SWARMGYM_SUITES_DIR"], *argv[:1]]
        if env.get("SWARMGYM_SIM_FLEET"):
            ro.append(env["SWARMGYM_SIM_FLEET"])
        pool = env.get("SWARMGYM_SIM_POOL")
        if pool and Path(pool).is_file():  # the pool knobs a shell set (read-only: runs never change them)
            ro.append(pool)
        return ro, [env["GOOSE_PATH_ROOT"]]

    def endpoints(self, config_dir: Path) -> list[Endpoint]:
        """The pool endpoint, only where the goose config names one: the simulator calls its planner
        there (:mod:`swarmgym.sim.planner`) and nowhere when none is named."""
        return super().endpoints(config_dir) if pool_endpoint(config_dir) else []

    def fleet_file(self, env: Mapping[str, str]) -> Path:
        """The fleet file this run reads (its hash goes into the record's provenance)."""
        return fleet_path(env)
