"""What every verify dimension gets to look at."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from swarmgym.config import Config
from swarmgym.models import CheckResult, Evidence, HostSample
from swarmgym.suitekit.suite import Check


@dataclass
class VerifyContext:
    evidence: Evidence | None
    workspace: Path
    checks: list[Check]
    cfg: Config
    samples: list[HostSample] = field(default_factory=list)
    check_timeout: float | None = None
    check_results: list[CheckResult] = field(default_factory=list)
