"""``probe``: a structural check of the app (docs/checks.md, "probe"; the ``probe:`` mapping is
:class:`swarmgym.suitekit.probes.Probe`).

Static probes (stdlib_only, layout, pure) parse the workspace's files here, outside every box
(:mod:`swarmgym.grading.probes.static`).  Run-time probes (api, sql_owner, pytest) run the app in the
grading's box through a driver that holds no expected value (:mod:`swarmgym.grading.probes.boxed`) and are
decided here (:mod:`swarmgym.grading.probes.decide`).  When the probe itself cannot run — its box, its
driver, this harness — the result is not passed and carries ``error``: an infrastructure error, never the
app's failure.
"""
from __future__ import annotations

from swarmgym.grading.context import GradingContext
from swarmgym.grading.kinds.base import result
from swarmgym.grading.probes import boxed
from swarmgym.grading.probes.decide import DECIDE
from swarmgym.grading.probes.static import STATIC
from swarmgym.models import CheckResult, ErrorInfo
from swarmgym.suitekit.suite import Check


class ProbeKind:
    name = "probe"

    def run(self, check: Check, ctx: GradingContext) -> CheckResult:
        probe = check.probe
        try:
            if probe is None:
                raise boxed.ProbeInfraError(f"check {check.name!r} of kind probe has no 'probe' mapping")
            if probe.type in STATIC:
                passed, detail = STATIC[probe.type](ctx.workspace, probe)
                return result(check, passed, detail)
            ran = boxed.run(check, probe, ctx)
            if ran.failure is not None:
                return result(check, False, ran.failure)
            passed, detail = DECIDE[probe.type](probe, ran)
        except Exception as e:  # the probe itself failed: infra, said so
            return result(check, False, f"probe could not run (infrastructure, not the app): {e}",
                          error=ErrorInfo.of(e))
        cap = ctx.cfg.checks.output_cap
        last = (ran.runs or ran.apps or [{}])[-1]
        return result(check, passed, detail, exit_code=last.get("code"), timed_out=bool(last.get("timed_out")),
                      stdout_tail=str(last.get("out", ""))[-cap:], stderr_tail=str(last.get("err", ""))[-cap:])
