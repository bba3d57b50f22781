"""``command_succeeds``: ``bash -c RUN`` in the grading's check box exits 0 within its timeout."""
from __future__ import annotations

from swarmgym.grading.context import GradingContext
from swarmgym.grading.kinds.base import result
from swarmgym.isolation.sandbox import SandboxResult
from swarmgym.models import CheckResult
from swarmgym.suitekit.suite import Check


def boxed(check: Check, res: SandboxResult, passed: bool, detail: str) -> CheckResult:
    """The result of a check decided by one box's run, with what came out of it."""
    return result(check, passed, detail, exit_code=res.exit_code, timed_out=res.timed_out,
                  stdout_tail=res.stdout_tail, stderr_tail=res.stderr_tail)


class CommandSucceeds:
    name = "command_succeeds"

    def run(self, check: Check, ctx: GradingContext) -> CheckResult:
        res = ctx.box(str(check.run), timeout=ctx.timeout_for(check))
        passed, detail = res.exit_code == 0 and not res.timed_out, f"exit {res.exit_code}"
        if breach := res.breach():
            passed, detail = False, breach
        elif res.timed_out:
            passed, detail = False, "timed out; process group killed"
        elif not passed and "No space left on device" in res.stderr_tail:
            detail += (f" (No space left on device: each tmpfs of a check's box holds {ctx.cfg.checks.tmpfs_mb} MB,"
                       " checks.tmpfs_mb)")
        return boxed(check, res, passed, detail)
