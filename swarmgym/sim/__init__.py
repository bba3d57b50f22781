"""swarmgym-sim: a fleet simulator that implements the goose local-edition swarm contract.

It builds the suite's reference app (or a mutant) with seeded, configurable faults, and writes
exactly what goose writes — RunReport JSON on stdout, ``.swarm/run-*.jsonl``, worker sessions
in ``sessions.db`` — so every path of the harness runs for real without GPUs.
See docs/simulator.md.
"""
