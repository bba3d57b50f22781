"""The three exploratory archetypes and how each opens a session.

heavy-spec and minimal-spec invent a new app; continue-existing picks an app the ledger knows is
still green (the last exploratory record for its slug is functional and its workspace exists) and
asks for a feature on top of it, carrying its old checks along as regression checks.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swarmgym.brains import ask_json
from swarmgym.config import Config
from swarmgym.core.errors import UsageError
from swarmgym.explore import prompts
from swarmgym.explore.schemas import Opener, merge_checks
from swarmgym.ledger import Ledger
from swarmgym.suitekit.suite import Check
from swarmgym.trust import safefs

ARCHETYPES = ("heavy-spec", "minimal-spec", "continue-existing")


@dataclass
class Substrate:
    """A green app kept on disk by an earlier exploratory session."""

    app_slug: str
    workspace: Path
    session_id: str
    checks: list[Check] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)


def check_archetype(name: str) -> str:
    if name not in ARCHETYPES:
        raise UsageError(f"--archetype: unknown archetype {name!r}; expected one of {', '.join(ARCHETYPES)}")
    return name


def _session_doc(cfg: Config, sid: str) -> dict:
    path = cfg.runs_dir / sid / "session.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def green_apps(cfg: Config) -> list[Substrate]:
    """Apps whose LAST exploratory record passed its checks and whose workspace still exists, newest first."""
    if not (cfg.ledger_dir / "sessions.jsonl").exists():
        return []
    last: dict[str, Any] = {}
    for rec in Ledger(cfg.ledger_dir).records(kind="session", mode="exploratory"):
        last[rec.app_slug] = rec
    out = []
    for rec in sorted(last.values(), key=lambda r: r.ts, reverse=True):
        ws = Path(rec.data.get("workspace") or cfg.apps_dir / rec.app_slug)
        if not (rec.functional and rec.overall in ("pass", "partial") and ws.is_dir()):
            continue
        doc = _session_doc(cfg, rec.session_id)
        checks = [Check.model_validate(c) for c in (doc.get("data") or {}).get("checks", [])]
        out.append(Substrate(rec.app_slug, ws, rec.session_id, checks,
                             [t.get("prompt", "") for t in doc.get("turns", []) if t.get("prompt")]))
    return out


def pick_substrate(cfg: Config, seed: int) -> Substrate:
    apps = green_apps(cfg)
    if not apps:
        raise UsageError(f"continue-existing: the ledger in {cfg.ledger_dir} knows no green app whose workspace "
                         "still exists; run a heavy-spec or minimal-spec session that passes first")
    return apps[0] if len(apps) == 1 else random.Random(seed).choice(apps)


def describe_substrate(s: Substrate) -> dict:
    files = [f.rel for f in safefs.list_files(s.workspace, max_files=200,
                                              skip_dirs={".swarm", "__pycache__", ".git", ".pytest_cache"}).files]
    return {"app_slug": s.app_slug, "files": files[:200], "earlier_prompts": [p[:3000] for p in s.prompts[-3:]],
            "regression_checks": [c.model_dump(exclude_defaults=True) for c in s.checks]}


def open_session(brain, cfg: Config, archetype: str, *, persona: str | None, seed: int,
                 substrate: Substrate | None = None, sim_apps: list[dict[str, Any]] | None = None) -> Opener:
    """Ask the brain for the opener (validated; re-asked on bad replies; BrainError when it gives up);
    ``sim_apps``: the swarm is the simulator, and these are the apps it can build."""
    user = prompts.opener_user(archetype, persona=persona, seed=seed,
                               substrate=describe_substrate(substrate) if substrate else None, sim_apps=sim_apps)
    op = ask_json(brain, "opener", prompts.opener_system(archetype), user, Opener, cfg.brain.max_reasks)
    if substrate is not None:
        op = op.model_copy(update={"app_slug": substrate.app_slug,
                                   "checks": merge_checks(substrate.checks, op.checks, 1)})
    if op.expected_tool and not any(c.kind == "tool_called" for c in op.checks):
        op = op.model_copy(update={"checks": [*op.checks, Check(name="mcp-tool-called", kind="tool_called",
                                                                  tool=op.expected_tool)]})
    return op
