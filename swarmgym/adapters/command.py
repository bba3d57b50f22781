"""Any other swarm: an argv template from ``swarm.command`` with ``{prompt}`` substituted.

No shell is involved (the prompt is one argv element, never parsed).  Such a tool keeps no
fleet log, so ``has_fleet_log`` is False; a JSON RunReport on stdout is still read if printed.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, Sequence

from swarmgym.adapters.base import base_env, execute, merged_env
from swarmgym.adapters.runner import resolve_binary
from swarmgym.core.errors import AdapterError
from swarmgym.models import RunOutcome


class CommandAdapter:
    name = "command"
    replays_seed = False  # every run is a fresh draw, whatever the seed

    def __init__(self, cfg) -> None:
        self.cfg = cfg

    def argv(self, prompt: str, mcp: Sequence[str]) -> list[str]:
        template = list(self.cfg.swarm.command)
        if not template:
            raise AdapterError("swarm.command is empty: set it in config.yaml to an argv list with {prompt}, "
                               "e.g. [mytool, build, '{prompt}']")
        argv = [a.replace("{prompt}", prompt).replace("{mcp}", ",".join(mcp)) for a in template]
        argv[0] = resolve_binary(argv[0], hint=" (swarm.command[0])")
        return argv

    def preflight(self, variant: str) -> None:
        self.argv("{prompt}", ())  # an empty template or a missing program: one line

    def job_env(self, variant: str, seed: int, suite: str | None = None) -> dict[str, str]:
        return {}

    def binary(self) -> list[str]:
        return self.argv("{prompt}", ())[:1]

    def env(self, env: Mapping[str, str] | None) -> dict[str, str]:
        return merged_env(base_env(self.cfg), self.cfg.swarm.env, env)

    def run(self, prompt: str, workspace: Path | str, *, mcp: Sequence[str] = (),
            env: Mapping[str, str] | None = None, timeout: float | None = None) -> RunOutcome:
        argv = self.argv(prompt, list(mcp) or list(self.cfg.swarm.mcp))
        return execute(self.name, argv, workspace, self.env(env),
                       timeout or self.cfg.swarm.timeout, has_fleet_log=False, cfg=self.cfg,
                       read_only=[argv[0], *self.named_paths()])

    def named_paths(self) -> list[str]:
        """Existing absolute paths in the ``swarm.command`` template (a script, a seed folder): the
        configured tool may read them even inside the hidden swarmgym root."""
        return [a for a in self.cfg.swarm.command if os.path.isabs(a) and os.path.exists(a)]
