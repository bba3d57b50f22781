"""Distributed campaigns: Celery app, routing, coordinator tasks, campaign store, lease, schedules.

``make_app(cfg)`` builds the one Celery app every process uses (CLI, workers, beat, flower).
Host-side tasks live in :mod:`workers.tasks`; coordinator tasks in :mod:`swarmgym.queue.coordinator`.
"""
