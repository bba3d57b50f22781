"""goose local-edition: ``<binary> swarm run "<prompt>" --output-format json [--mcp m]…``.

What reaches goose through the environment: ``GOOSE_SWARM_*`` flags, ``LMSTUDIO_API_KEY``, MCP keys.
goose sets ``LMSTUDIO_HOST`` itself from its pool config's endpoint (``goose swarm pool``), so an
``LMSTUDIO_HOST`` in ``swarm.env`` changes nothing; ``GOOSE_PATH_ROOT`` moves goose's config along
with its data, so goose then runs with an empty pool.  Its sessions are read where goose keeps them
(:mod:`swarmgym.goose_paths`).
"""
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

    def job_env(self, variant: str, seed: int, suite: str | None = None) -> dict[str, str]:
        return {}

    def pool_argv(self) -> list[str]:
        """``<binary> swarm pool``: what changes this swarm's pool (weight, enable, disable)."""
        return [*self.binary(), "swarm", "pool"]

    def env(self, env: Mapping[str, str] | None) -> dict[str, str]:
        return merged_env(base_env(self.cfg), self.cfg.swarm.env, env)

    def sessions_db(self, env: Mapping[str, str]) -> str:
        return str(default_sessions_db(env, self.cfg.swarm.sessions_db))

    def run(self, prompt: str, workspace: Path | str, *, mcp: Sequence[str] = (),
            env: Mapping[str, str] | None = None, timeout: float | None = None) -> RunOutcome:
        argv = swarm_argv(self.binary(), prompt, list(mcp) or list(self.cfg.swarm.mcp))
        full_env = self.env(env)
        ro, rw = self.box_paths(argv, full_env)
        return execute(self.name, argv, workspace, full_env, timeout or self.cfg.swarm.timeout,
                       sessions_db=self.sessions_db(full_env), cfg=self.cfg, read_only=ro, writable=rw)

    def box_paths(self, argv: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
        """(read-only, writable) paths the swarm's box needs besides the workspace: the goose binary,
        goose's data/config/state folders (sessions.db, config) and the sessions.db named in config."""
        from swarmgym.goose_paths import state_dirs

        rw = [str(p) for p in state_dirs(env)]
        db = Path(self.sessions_db(env)).parent
        return [argv[0]], rw + [str(db)]
