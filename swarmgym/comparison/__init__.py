"""A/B comparison of two arms: paired rounds until an anytime-valid sequential test decides (docs/compare.md)."""

from swarmgym.config.options import DEFAULT_MAX_RUNS  # noqa: F401  (compare.max_runs's default: the one place)
