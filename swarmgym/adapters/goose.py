"""goose local-edition: ``<binary> swarm run "<prompt>" --output-format json [--mcp m]…``."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from swarmgym.adapters.base import base_env, execute, merged_env
from swarmgym.adapters.runner import resolve_binary
from swarmgym.collect.traces import default_sessions_db
from swarmgym.models import RunOutcome


def swarm_argv(binary: list[str], prompt: str, mcp: Sequence[str]) -> list[str]:
    argv = [*binary, "swarm", "run", prompt, "--output-format", "json"]
    for m in mcp:
        argv += ["--mcp", m]
    return argv


class GooseAdapter:
    name = "goose"

    def __init__(self, cfg) -> None:
        self.cfg = cfg

    def binary(self) -> list[str]:
        hint = " (set swarm.binary in config.yaml to the goose local-edition build, or run with --swarm sim)"
        return [resolve_binary(self.cfg.swarm.binary, hint=hint)]

    def preflight(self, variant: str) -> None:
        self.binary()  # a missing binary: one line suggesting --swarm sim

    def job_env(self, variant: str, seed: int) -> dict[str, str]:
        return {}

    def pool_runner(self, env: Mapping[str, str] | None) -> tuple[list[str], dict[str, str]] | None:
        return list(self.binary()), self.env(env)

    def env(self, env: Mapping[str, str] | None) -> dict[str, str]:
        return merged_env(base_env(self.cfg), self.cfg.swarm.env, env)

    def sessions_db(self, env: Mapping[str, str]) -> str:
        return str(default_sessions_db(env, self.cfg.swarm.sessions_db))

    def run(self, prompt: str, workspace: Path | str, *, mcp: Sequence[str] = (),
            env: Mapping[str, str] | None = None, timeout: float | None = None) -> RunOutcome:
        argv = swarm_argv(self.binary(), prompt, list(mcp) or list(self.cfg.swarm.mcp))
        full_env = self.env(env)
        return execute(self.name, argv, workspace, full_env, timeout or self.cfg.swarm.timeout,
                       sessions_db=self.sessions_db(full_env))
