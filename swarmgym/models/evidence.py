"""One run as a swarm adapter returned it (:class:`RunOutcome`) and all that collect gathered about it
(:class:`Evidence`): the input to verify.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from swarmgym.models.base import Model
from swarmgym.models.goose import PoolDevice, RunReport, SessionTrace
from swarmgym.models.provenance import Provenance


class NetworkUse(Model):
    """The network of a swarm's box (its own namespace): the model endpoints it could reach, through the
    host-side forwarder, and what went through it."""

    endpoints: list[str] = Field(default_factory=list)
    """The endpoints reachable from the box (``http://host:port``; ``(box: addr)`` where the box used
    another address); nothing else was."""
    bytes_sent: int = 0
    """Bytes the forwarder sent to the endpoints for this job."""
    bytes_received: int = 0
    """Bytes the endpoints sent back to the box."""
    connections: int = 0
    """Connections made to the endpoints."""
    failed: int = 0
    """Connections the box opened that the forwarder could not complete (endpoint down, malformed request)."""


class RunOutcome(Model):
    """What a swarm adapter returns for one run."""

    adapter: str
    """The swarm adapter that ran it (goose, sim, command)."""
    argv: list[str] = Field(default_factory=list)
    """The command line, long arguments shortened."""
    exit_code: int
    """The swarm's exit status; 124 when swarmgym killed it at the timeout."""
    report: RunReport | None = None
    """The RunReport, parsed tolerantly."""
    report_source: Literal["stdout", "events", "none"] = "none"
    """Where the report came from: stdout, rebuilt from events, or none."""
    stdout_tail: str = ""
    """The last bytes of stdout."""
    stderr_tail: str = ""
    """The last bytes of stderr."""
    event_log: str | None = None
    """Path of the run's ``.swarm/run-*.jsonl``."""
    wall_secs: float = 0.0
    """Wall seconds the swarm ran."""
    timed_out: bool = False
    """Killed at ``swarm.timeout``."""
    has_fleet_log: bool = True
    """False for swarms that keep no fleet log (command)."""
    sessions_db: str | None = None
    """The goose sessions.db the traces were read from."""
    problems: list[str] = Field(default_factory=list)
    """What could not be read, one line each."""
    limits_hit: list[str] = Field(default_factory=list)
    """Resource caps the swarm hit (its box's memory cap, the workspace-size budget), one line each;
    any fails the swarm dimension."""
    network: NetworkUse | None = None
    """The box's own network and its traffic; None where the swarm had no network of its own
    (``none``, seatbelt)."""


class FileEntry(Model):
    path: str
    size: int
    sha256: str


class HostSample(Model):
    ts: float
    cpu_percent: float
    mem_percent: float
    load1: float
    swarm_procs: int = 0
    swarm_cpu_percent: float = 0.0
    swarm_rss_mb: float = 0.0


class Evidence(Model):
    """All that collect gathered about one run: the input to verify."""

    workspace: str
    run: RunOutcome | None = None
    events: list[dict[str, Any]] = Field(default_factory=list)
    event_counts: dict[str, int] = Field(default_factory=dict)
    pool: list[PoolDevice] = Field(default_factory=list)
    traces: dict[str, SessionTrace] = Field(default_factory=dict)
    files: list[FileEntry] = Field(default_factory=list)
    files_truncated: bool = False
    host: str | None = None
    host_samples: list[HostSample] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    provenance: Provenance | None = None  # what ran, as this host ran it

    @property
    def report(self) -> RunReport | None:
        return self.run.report if self.run else None
