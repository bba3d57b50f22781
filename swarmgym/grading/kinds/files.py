"""``file_exists``, ``file_contains``, ``file_matches``: the workspace's own regular files, read outside
every box and never through a link or outside the workspace (:mod:`swarmgym.trust.safefs`)."""
from __future__ import annotations

import re
from collections.abc import Callable

from swarmgym.grading.context import GradingContext
from swarmgym.grading.kinds.base import result
from swarmgym.models import CheckResult
from swarmgym.suitekit.suite import Check
from swarmgym.trust import safefs

MAX_READ = 2 * 1024 * 1024  # bytes of each file read


def _find(check: Check, ctx: GradingContext, found: Callable[[str], bool], want: str) -> CheckResult:
    files = safefs.glob(ctx.workspace, check.path or "")
    if not files:
        return result(check, False, f"no file matches {check.path}")
    for rel in files:
        text = safefs.read_text(ctx.workspace, rel, MAX_READ)
        if text is not None and found(text):
            return result(check, True, f"found in {rel}")
    return result(check, False, f"{want} not found in {check.path}")


class FileExists:
    name = "file_exists"

    def run(self, check: Check, ctx: GradingContext) -> CheckResult:
        files = safefs.glob(ctx.workspace, check.path or "")
        if not files:
            return result(check, False, f"no file matches {check.path}")
        return result(check, True, f"{len(files)} file(s) match {check.path}")


class FileContains:
    """A literal substring in some file ``path`` matches."""

    name = "file_contains"

    def run(self, check: Check, ctx: GradingContext) -> CheckResult:
        text = check.text or ""
        return _find(check, ctx, lambda body: text in body, repr(check.text))


class FileMatches:
    """A regular expression (``re.search``, MULTILINE) in some file ``path`` matches."""

    name = "file_matches"

    def run(self, check: Check, ctx: GradingContext) -> CheckResult:
        rx = re.compile(check.pattern or "", re.MULTILINE)
        return _find(check, ctx, lambda body: rx.search(body) is not None, str(check.pattern))
