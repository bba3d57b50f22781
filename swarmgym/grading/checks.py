"""The golden-check runner: grade a workspace against a spec's checks.

``command_succeeds`` and ``differential`` (a golden table, :mod:`swarmgym.grading.difftable`) run through
:func:`swarmgym.isolation.sandbox.run_sandboxed`; the file kinds read
the workspace (never following a path outside it); ``tool_called`` reads the swarm evidence.
"""
from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from swarmgym.config import Config
from swarmgym.grading import difftable
from swarmgym.isolation import check_policy, resolve
from swarmgym.isolation.sandbox import Limits, SandboxResult, run_sandboxed
from swarmgym.models import CheckResult, Evidence
from swarmgym.suitekit.suite import Check
from swarmgym.trust import safefs

MAX_READ = 2 * 1024 * 1024


def _inside(ws: Path, pattern: str) -> list[str]:
    """The workspace's regular files ``pattern`` names: never through a link, never outside (:mod:`swarmgym.trust.safefs`)."""
    return safefs.glob(ws, pattern)


def tool_names(evidence: Evidence | None) -> list[str]:
    """Every tool call name the evidence shows, from the RunReport and the session traces."""
    if evidence is None:
        return []
    names = [t.name for trace in evidence.traces.values() for t in trace.tool_calls]
    if evidence.report:
        names += [t.name for task in evidence.report.tasks for t in task.tool_calls]
    for e in evidence.events:
        if e.get("event") == "task_completed":
            names += [t.get("name", "") for t in e.get("tool_calls") or [] if isinstance(t, dict)]
    return names


def _file_check(check: Check, ws: Path) -> tuple[bool, str]:
    files = _inside(ws, check.path or "")
    if not files:
        return False, f"no file matches {check.path}"
    if check.kind == "file_exists":
        return True, f"{len(files)} file(s) match {check.path}"
    rx = re.compile(check.pattern or "", re.MULTILINE) if check.kind == "file_matches" else None
    for rel in files:
        text = safefs.read_text(ws, rel, MAX_READ)
        if text is not None and (rx.search(text) if rx else (check.text or "") in text):
            return True, f"found in {rel}"
    want = check.pattern if rx else repr(check.text)
    return False, f"{want} not found in {check.path}"


def check_box(cfg: Config, workspace: Path, timeout: float) -> Callable[..., SandboxResult]:
    """``box(command, output_cap=…)``: run ``bash -c command`` in a golden check's box for ``workspace``."""
    limits = Limits.from_config(cfg.checks)
    backend = resolve(cfg.sandbox.backend, cfg.swarm.adapter)
    policy = check_policy(cfg, workspace, limits)

    def box(command: str, output_cap: int = cfg.checks.output_cap) -> SandboxResult:
        return run_sandboxed(command, workspace, timeout=timeout, limits=limits, extra_secrets=set(cfg.secrets),
                             output_cap=output_cap, env_extra=cfg.checks.env, policy=policy, backend=backend)

    return box


def run_check(check: Check, workspace: Path, cfg: Config, evidence: Evidence | None = None,
              timeout: float | None = None, row_filter: Callable[[dict], bool] | None = None) -> CheckResult:
    """Grade ``workspace`` against one check; ``row_filter`` keeps only those rows of a golden table
    (``suite verify`` tries the rows tracing a mutant's requirements first)."""
    ws = Path(workspace)
    start = time.monotonic()
    if check.kind in ("command_succeeds", "differential"):
        limit = check.timeout or timeout or cfg.checks.timeout
        box = check_box(cfg, ws, limit)
        backend = resolve(cfg.sandbox.backend, cfg.swarm.adapter)
        summary = None
        if check.kind == "command_succeeds":
            res = box(str(check.run))
            passed, detail = res.exit_code == 0 and not res.timed_out, f"exit {res.exit_code}"
        else:  # the box gets the rows' inputs; the golden values are compared here, outside it
            table = difftable.load_table(check.table_file(), str(check.module))
            if row_filter is not None:
                table["rows"] = [r for r in table["rows"] if row_filter(r)]
            graded = difftable.grade(table, lambda cmd: box(cmd, difftable.RESULT_CAP), timeout=limit,
                                     whole_box=backend == "bwrap")
            res, summary = graded.box, graded.summary
            passed, detail = difftable.summarize(summary, res.exit_code)
            res.stdout_tail = json.dumps(summary)[-cfg.checks.output_cap:] if summary else ""
        breach = res.breach()
        if summary is not None:  # a golden table: the cap hit a row, which its confirmation ran again
            detail = f"{detail}; {breach}" if breach and not passed else detail
        elif breach:
            passed, detail = False, breach
        elif res.timed_out:
            passed, detail = False, "timed out; process group killed"
        elif not passed and "No space left on device" in res.stderr_tail:
            detail += f" (No space left on device: each tmpfs of a check's box holds {cfg.checks.tmpfs_mb} MB, checks.tmpfs_mb)"
        return CheckResult(name=check.name, kind=check.kind, passed=passed,
                           exit_code=res.exit_code, duration_s=round(time.monotonic() - start, 3),
                           timed_out=res.timed_out, stdout_tail=res.stdout_tail, stderr_tail=res.stderr_tail,
                           detail=detail)
    if check.kind == "tool_called":
        names = tool_names(evidence)
        ok = any(n == check.tool or n.endswith("__" + (check.tool or "")) for n in names)
        detail = (f"{check.tool} called" if ok else
                  f"{check.tool} never called ({len(names)} tool calls seen)" if evidence else "no swarm evidence")
    else:
        ok, detail = _file_check(check, ws)
    return CheckResult(name=check.name, kind=check.kind, passed=ok, duration_s=round(time.monotonic() - start, 3),
                       detail=detail)


def run_checks(checks: Iterable[Check], workspace: Path, cfg: Config, evidence: Evidence | None = None,
               timeout: float | None = None) -> list[CheckResult]:
    return [run_check(c, workspace, cfg, evidence, timeout) for c in checks]
