"""Comparing arms: `compare` (two arms in paired rounds until a group-sequential test decides), `plan` (what it
will cost) and `tune` (the best of K arms in an anytime-valid race); docs/compare.md."""

from swarmgym.config.options import DEFAULT_MAX_RUNS  # noqa: F401  (compare.max_runs's default: the one place)
