"""Exploratory mode: a brain invents apps and follow-ups; the harness grades by running them.

    from swarmgym.explore import run_session
    doc = run_session(cfg, "heavy-spec", seed=1, turns=3)

Parts: archetypes (how a session opens), prompts (what the brain is told), schemas (what it must
answer), session (the turn loop), judge (the AI judge dimensions), monitor (fleet balance) and
tweaker + scope (scope-guarded knob changes with a before/after re-run).
"""
from swarmgym.explore.archetypes import ARCHETYPES
from swarmgym.explore.session import run_session

__all__ = ["ARCHETYPES", "run_session"]
