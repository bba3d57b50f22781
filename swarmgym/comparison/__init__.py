"""A/B comparison of two arms: paired rounds until an anytime-valid sequential test decides (docs/compare.md)."""

#: the high tier's 60 runs: same power on the simulator, fewer runs (benchmarks/sequential.py)
DEFAULT_MAX_RUNS = 60
