"""goose local-edition: ``<binary> swarm run "<prompt>" --output-format json [--mcp m]…``.

What reaches goose through the environment: ``GOOSE_SWARM_*`` flags, MCP keys (``swarm.pass_secrets``).
goose sets ``LMSTUDIO_HOST`` itself from its pool config's endpoint (``swarm.endpoint`` of its
config.yaml), so an ``LMSTUDIO_HOST`` in ``swarm.env`` changes nothing; that endpoint is the one model
endpoint goose's box reaches (:mod:`swarmgym.collect.goose_config`), and its ``LMSTUDIO_API_KEY`` (the
environment, or goose's ``secrets.yaml``) is added by the forwarder on the host, never given to goose.
``GOOSE_PATH_ROOT`` moves goose's config along with its data — which is how every run gets its own
goose state: ``GOOSE_PATH_ROOT`` points at a fresh per-job root
(:func:`swarmgym.collect.goose_paths.job_root`, next to the workspace) into which the operator's
pristine config (goose's config folder for the operator's environment, pool included) is copied
without its secrets; the copy is removed after the run, the sessions stay for the reader.  Nothing
one job writes there reaches the next job or the operator's own folders; the record's provenance
carries the copy's hash (``goose_config_hash``).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, Sequence

from swarmgym.adapters.base import base_env, execute, merged_env
from swarmgym.adapters.runner import resolve_binary
from swarmgym.collect.goose_config import DEFAULT_ENDPOINT, pool_endpoint, secret
from swarmgym.collect.goose_paths import config_hash, drop_config, fresh_root, goose_dir, job_root, sessions_db
from swarmgym.collect.traces import default_sessions_db
from swarmgym.core.errors import AdapterError
from swarmgym.isolation.endpoints import Endpoint, parse_endpoint
from swarmgym.models import RunOutcome

#: goose's LM Studio provider key (its ``LMSTUDIO_API_KEY``): sent by the forwarder as a Bearer token
POOL_KEY = "LMSTUDIO_API_KEY"


def swarm_argv(binary: list[str], prompt: str, mcp: Sequence[str]) -> list[str]:
    argv = [*binary, "swarm", "run", prompt, "--output-format", "json"]
    for m in mcp:
        argv += ["--mcp", m]
    return argv


class GooseAdapter:
    name = "goose"
    replays_seed = False  # every run is a fresh draw, whatever the seed

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

    def config_hash(self, env: Mapping[str, str]) -> str | None:
        """The hash of the pristine goose config a run with ``env`` starts from (for provenance)."""
        return config_hash(env)

    def run(self, prompt: str, workspace: Path | str, *, mcp: Sequence[str] = (),
            env: Mapping[str, str] | None = None, timeout: float | None = None) -> RunOutcome:
        argv = swarm_argv(self.binary(), prompt, list(mcp) or list(self.cfg.swarm.mcp))
        pristine = self.env(env)
        root = fresh_root(pristine, job_root(workspace))
        run_env = {**pristine, "GOOSE_PATH_ROOT": str(root)}
        ro, rw = self.box_paths(argv, run_env)
        try:
            own = self.endpoints(root / "config")
            keys = {POOL_KEY: key} if (key := secret(POOL_KEY, goose_dir("config", pristine), os.environ)) else {}
            return execute(self.name, argv, workspace, run_env, timeout or self.cfg.swarm.timeout,
                           sessions_db=str(sessions_db(run_env)), cfg=self.cfg, read_only=ro, writable=rw,
                           endpoints=own, keys=keys)
        finally:
            drop_config(root)

    def endpoints(self, config_dir: Path) -> list[Endpoint]:
        """goose's pool endpoint as this run's config copy names it (goose's default when it names none):
        the model endpoint its box reaches, with ``LMSTUDIO_API_KEY`` added by the forwarder (plain HTTP
        only: an ``https`` endpoint is reached end to end, so its key, if any, goes to goose)."""
        url = pool_endpoint(config_dir) or DEFAULT_ENDPOINT
        where = f"goose's swarm.endpoint ({config_dir / 'config.yaml'})"
        try:
            return [parse_endpoint({"url": url, **({} if url.lower().startswith("https:") else {"key_env": POOL_KEY})},
                                   where)]
        except ValueError as e:
            raise AdapterError(str(e)) from None

    def box_paths(self, argv: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
        """(read-only, writable) paths the swarm's box needs besides the workspace: the goose binary,
        and this run's own goose root (config copy, sessions.db, state)."""
        return [argv[0]], [env["GOOSE_PATH_ROOT"]]
