"""Helpers for the tests: plain functions, classes and constants, importable from any test folder.

Fixtures stay in the ``conftest.py`` files (the root one has the session's throwaway Redis); everything a
test or a conftest imports by name lives here, one module per area:

- :mod:`tests.support.queue` — the session's Redis URLs and clients, a queue home's ``config.yaml``,
  ``wait_until``, fleet helpers (custom campaigns, finalized-campaign checks, orphaned swarms) and the tiny
  suite for real-but-tiny jobs (``tiny_jobs_home``);
- :mod:`tests.support.simrun` — run the real ``swarmgym-sim`` through the real ``goose`` adapter;
- :mod:`tests.support.goose` — a ``goose`` executable that is ``swarmgym-sim`` under another name;
- :mod:`tests.support.evidence` — hand-built :class:`~swarmgym.models.Evidence` for the grading tests;
- :mod:`tests.support.grading` — golden-check results through ``grade()`` (the checks dimension alone);
- :mod:`tests.support.mutant_sample` — a seeded, stratified sample of a frozen suite's mutants, verified;
- :mod:`tests.support.docs` — hand-built session documents for the report tests;
- :mod:`tests.support.hostile` — the hostile campaign's arena for the security tests;
- :mod:`tests.support.hostile_workspace` — a workspace of links, FIFOs, a socket and a sparse file (issue #20);
- :mod:`tests.support.tasks` — the fleet's tasks without worker processes (fast queue tests);
- :mod:`tests.support.trend` — tiny homes for the trend tests;
- :mod:`tests.support.attacks` — issue #30's attacking apps and a command swarm that unpacks a folder;
- :mod:`tests.support.layers` — swarmgym's import graph and the layer table of docs/architecture.md.
"""
