"""Distributed campaigns: Celery app, routing, coordinator tasks, campaign store, lease, schedules.

``make_app(cfg)`` builds the one Celery app every process uses (CLI, workers, beat, flower).
Host-side tasks live in :mod:`swarmgym.workers.tasks` (the repo's ``workers/`` folder, installed under the
``swarmgym`` namespace); coordinator tasks in :mod:`swarmgym.queue.coordinator`.
"""
