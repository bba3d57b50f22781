"""The one exception tree of swarmgym.

    SwarmgymError            base; ``str(e)`` is a one-line message for the user
    ├── ConfigError          bad config.yaml / env value (exit 2)
    ├── SuiteError           bad suite file, unknown spec (exit 2)
    ├── UsageError           bad CLI argument or input file (exit 2)
    ├── AdapterError         the swarm could not be started (e.g. binary missing)
    ├── LedgerError          the ledger cannot be read or written
    ├── BrainError           a brain gave no valid answer in the allowed tries
    ├── QueueError           the broker / Celery side failed
    │   └── JobNotRun        a fleet job could not run (recorded as an error; Flower shows FAILURE)
    ├── IsolationError       no isolation backend can box untrusted code here
    └── CheckInfraError      a golden check could not be run (its box, its harness): infra, not the app

Errors that must be kept are stored as data (:class:`swarmgym.models.ErrorInfo`),
never as pickled exceptions.
"""
from __future__ import annotations


class SwarmgymError(Exception):
    """Base class. ``exit_code`` is what the CLI exits with."""

    exit_code = 1


class ConfigError(SwarmgymError):
    exit_code = 2


class SuiteError(SwarmgymError):
    exit_code = 2


class UsageError(SwarmgymError):
    exit_code = 2


class AdapterError(SwarmgymError):
    exit_code = 2


class LedgerError(SwarmgymError):
    exit_code = 1


class BrainError(SwarmgymError):
    exit_code = 1


class QueueError(SwarmgymError):
    exit_code = 1


class IsolationError(SwarmgymError):
    """No isolation backend can box untrusted code here (and ``none`` was not asked for)."""

    exit_code = 2
class JobNotRun(QueueError):
    """Raised by the host task *after* the job's error result was sent for recording, so the task
    ends in FAILURE (Flower, events) instead of a SUCCESS that hides it."""


class CheckInfraError(SwarmgymError):
    """A golden check could not be run — its box did not start, its harness crashed: an infrastructure
    error, never the app's failure (the check's result carries it as ``error``)."""
