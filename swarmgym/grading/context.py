"""What one grading carries to every check kind and every dimension: :class:`GradingContext`.

One context per :func:`swarmgym.grading.grade.grade` call.  The check box — the isolation backend, the
limits and the policy — is worked out once, the first time a check asks for a box, and every check of the
grading runs in it (a grading with only file checks never resolves a backend at all).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from swarmgym.config import Config
from swarmgym.isolation import Policy, check_policy, resolve
from swarmgym.isolation.sandbox import Limits, SandboxResult, run_sandboxed
from swarmgym.models import CheckResult, Evidence, HostSample
from swarmgym.suitekit.suite import Check


@dataclass
class GradingContext:
    workspace: Path
    cfg: Config
    checks: list[Check] = field(default_factory=list)
    evidence: Evidence | None = None
    samples: list[HostSample] = field(default_factory=list)
    #: seconds per check when the check names none (``verify --check-timeout``); else ``checks.timeout``
    check_timeout: float | None = None
    #: keeps only these rows of a row-based check (``suite verify`` tries the rows tracing a mutant's
    #: requirements first); None: every row
    row_filter: Callable[[dict[str, Any]], bool] | None = None
    #: the caller reads the check results itself (regrade, the suite kit): a check that cannot be run raises
    strict: bool = False
    #: the caller needs only whether each check passes (``suite verify``): a golden table stops at its first
    #: confirmed failing row
    first_failure: bool = False
    #: what the checks dimension found, for the dimensions after it (diagnostics reads the tracebacks)
    check_results: list[CheckResult] = field(default_factory=list)
    #: the table checks' fast paths, run together once (:func:`swarmgym.grading.kinds.differential.fast_paths`)
    fast_paths: dict[str, Any] | None = None

    def timeout_for(self, check: Check) -> float:
        return check.timeout or self.check_timeout or self.cfg.checks.timeout

    @cached_property
    def limits(self) -> Limits:
        return Limits.from_config(self.cfg.checks)

    @cached_property
    def backend(self) -> str:
        """The concrete isolation backend of every check box of this grading (IsolationError if none works)."""
        return resolve(self.cfg.sandbox.backend, self.cfg.swarm.adapter)

    @cached_property
    def policy(self) -> Policy:
        return check_policy(self.cfg, self.workspace, self.limits)

    def box(self, command: str, *, timeout: float, output_cap: int | None = None) -> SandboxResult:
        """Run ``bash -c command`` in a golden check's box for the workspace: no network, the secrets
        scrubbed, the checks' limits; ``output_cap`` bytes of each stream kept (``checks.output_cap``)."""
        cfg = self.cfg
        return run_sandboxed(command, self.workspace, timeout=timeout, limits=self.limits,
                             extra_secrets=set(cfg.secrets), env_extra=cfg.checks.env, policy=self.policy,
                             output_cap=cfg.checks.output_cap if output_cap is None else output_cap,
                             backend=self.backend)
