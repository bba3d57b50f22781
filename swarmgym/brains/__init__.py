"""Brains: the pluggable model that invents exploratory work and judges it.

A brain is anything with ``name``, ``usage`` and ``complete(role, system, user, max_tokens) -> str``
(:class:`swarmgym.brains.base.Brain`).  Three ship: ``claude`` (Anthropic SDK), ``local`` (an
OpenAI-compatible endpoint such as LM Studio) and ``operator`` (a human or agent answering through
files in ``runs/operator/``).  :func:`get_brain` builds one by name; :func:`ask_json` gets one
validated JSON object out of any of them.
"""
from __future__ import annotations

from swarmgym.brains.base import BRAINS, Brain, Usage, get_brain, register_brain
from swarmgym.brains.jsonreply import ask_json, extract_one_json, strip_think

__all__ = ["Brain", "Usage", "get_brain", "register_brain", "BRAINS", "ask_json", "extract_one_json", "strip_think"]
