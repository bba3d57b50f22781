"""The simulator ``swarmgym-sim``, run as a real subprocess exactly like goose.

It never touches the user's real goose directory: unless the caller sets ``GOOSE_PATH_ROOT``
(in ``swarm.env`` or the call's env), it runs with ``<home>/.sim-goose``.  It looks suites up in
``cfg.suites_dir`` (``SWARMGYM_SUITES_DIR``).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Mapping

from swarmgym.adapters.base import base_env, merged_env
from swarmgym.adapters.goose import GooseAdapter
from swarmgym.sim.fleet import sim_root


def sim_command() -> list[str]:
    """The ``swarmgym-sim`` script next to this interpreter, else ``python -m swarmgym.sim``."""
    exe = Path(sys.executable).parent / "swarmgym-sim"
    if exe.is_file() and os.access(exe, os.X_OK):
        return [str(exe)]
    return [sys.executable, "-m", "swarmgym.sim"]


class SimAdapter(GooseAdapter):
    name = "sim"

    def binary(self) -> list[str]:
        return sim_command()

    def preflight(self, variant: str) -> None:
        from swarmgym.errors import UsageError
        from swarmgym.sim.fleet import load_fleet

        fleet = load_fleet({**os.environ, **self.cfg.swarm.env})
        if variant not in fleet.variants:
            raise UsageError(f"--variant {variant!r}: the simulator's fleet has no such variant profile; "
                             f"known: {', '.join(fleet.variants)} (fleet file: SWARMGYM_SIM_FLEET)")

    def job_env(self, variant: str, seed: int) -> dict[str, str]:
        return {"SWARMGYM_SIM_VARIANT": variant, "SWARMGYM_SIM_SEED": str(seed)}

    def env(self, env: Mapping[str, str] | None) -> dict[str, str]:
        caller = merged_env(self.cfg.swarm.env, env)
        full = merged_env(base_env(self.cfg), caller)
        full["GOOSE_PATH_ROOT"] = str(sim_root({**caller, "SWARMGYM_HOME": str(self.cfg.home)}))
        full["SWARMGYM_SUITES_DIR"] = caller.get("SWARMGYM_SUITES_DIR") or str(self.cfg.suites_dir)
        return full

    def sessions_db(self, env: Mapping[str, str]) -> str:
        from swarmgym.collect.traces import db_under_root

        return str(db_under_root(env["GOOSE_PATH_ROOT"]))
