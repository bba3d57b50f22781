"""Test machinery: a fleet and a Redis on one machine, for tests, benchmarks and dry runs.

Nothing in swarmgym itself imports this package (the layer table puts it above the CLI):
:class:`~swarmgym.testing.localredis.LocalRedis` starts a throwaway ``redis-server`` on a free port
(:func:`~swarmgym.testing.localredis.free_port`, the one way to pick one), and
:class:`~swarmgym.testing.localfleet.LocalFleet` starts real ``swarmgym worker`` processes against it.
It ships in the wheel so ``benchmarks/`` and a fleet's own dry runs can use it from an installed swarmgym.
"""
