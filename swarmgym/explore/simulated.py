"""What the brain is told when the swarm is the simulator (``--swarm sim``).

``swarmgym-sim`` builds an app only when the prompt names one it knows (docs/simulator.md, "Which app it
builds"): the suite's reference app, or now and then a drawn fault.  Any other prompt gets a README and a
stub ``app.py`` or nothing at all, which no honest check passes.  So a session on the simulator opens with
one of the apps of the configured suite, and every follow-up names it again: the simulator rebuilds that
same reference, so the earlier checks keep passing, while a feature the reference does not have cannot
pass — the simulator writes no new code.
"""
from __future__ import annotations

from typing import Any

from swarmgym.config import Config
from swarmgym.suitekit.suite import load_suite

PROMPT_CHARS = 2500  # of each app's prompt, in the opener's message


def buildable(cfg: Config) -> list[dict[str, Any]]:
    """The apps of the configured suite the simulator builds from scratch (a spec that starts from a
    starter app is left out): its slug and the prompt that specifies it."""
    suite = load_suite(cfg.suite, cfg.suites_dir)
    return [{"app_slug": s.app_slug, "spec": s.id,
             "prompt": s.prompt if len(s.prompt) <= PROMPT_CHARS else s.prompt[:PROMPT_CHARS] + " …"}
            for s in suite.specs if not s.starter]

