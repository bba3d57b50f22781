"""The alarm: a schedule's ``on_change`` command, run when a campaign's verdict asks for it.

``schedules[].on_change: [argv...]`` is run without a shell, in the home folder, with the campaign's change
summary (:func:`swarmgym.trend.change.summary`) as one JSON object on stdin, when the verdict is in
``on_change_when`` (default ``[regressed]``).  It gets ``trend.alarm_timeout`` seconds (then its process
group is killed); a failure (cannot start, non-zero exit, timeout) is logged and retried once.  The
campaign record is written before the alarm runs, so a failing alarm never loses it.
"""
from __future__ import annotations

import json
import logging
import os
import subprocess
from dataclasses import dataclass, field

from swarmgym.config import Config, Schedule
from swarmgym.isolation.proctree import kill_tree
from swarmgym.models import LedgerRecord
from swarmgym.trend.change import summary

log = logging.getLogger(__name__)
TRIES = 2
TAIL = 400


@dataclass
class Attempt:
    exit_code: int | None       # None: could not start, or killed at the timeout
    error: str = ""
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


@dataclass
class AlarmOutcome:
    argv: list[str]
    verdict: str
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.attempts) and self.attempts[-1].ok

    def describe(self) -> str:
        cmd = " ".join(self.argv)
        if self.ok:
            return f"alarm ({self.verdict}): ran `{cmd}`" + (" (second try)" if len(self.attempts) > 1 else "")
        last = self.attempts[-1] if self.attempts else Attempt(None, "not run")
        why = last.error or f"exit {last.exit_code}" + (f": {last.stderr}" if last.stderr else "")
        return f"alarm ({self.verdict}): `{cmd}` failed {len(self.attempts)} times ({why})"


def wanted(cfg: Config, rec: LedgerRecord) -> Schedule | None:
    """The schedule whose ``on_change`` must run for this campaign record (None: no alarm)."""
    ch = rec.change
    sched = cfg.schedule(ch.schedule if ch else None)
    if ch is None or sched is None or not sched.on_change:
        return None
    return sched if ch.verdict in sched.on_change_when else None


def run_once(argv: list[str], payload: str, cwd: str, timeout: float) -> Attempt:
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                cwd=cwd, start_new_session=True, env=dict(os.environ))
    except OSError as e:
        return Attempt(None, f"cannot start {argv[0]}: {e.strerror or e}")
    try:
        _, err = proc.communicate(payload.encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_tree(proc.pid)
        proc.communicate()
        return Attempt(None, f"killed after {timeout:g}s")
    return Attempt(proc.returncode, stderr=" ".join(err.decode("utf-8", "replace").split())[-TAIL:])


def fire(cfg: Config, sched: Schedule, rec: LedgerRecord) -> AlarmOutcome:
    """Run ``sched.on_change`` with ``rec``'s change summary on stdin; retried once on failure."""
    payload = json.dumps(summary(rec, cfg), default=str)
    out = AlarmOutcome(list(sched.on_change), rec.change.verdict if rec.change else "?")
    for n in range(TRIES):
        att = run_once(out.argv, payload, str(cfg.home), cfg.trend.alarm_timeout)
        out.attempts.append(att)
        if att.ok:
            break
        log.warning("on_change of %s (try %d of %d): %s", rec.campaign_id, n + 1, TRIES,
                    att.error or f"exit {att.exit_code} {att.stderr}")
    if not out.ok:
        log.error("on_change of %s failed: %s", rec.campaign_id, out.describe())
    return out


def fire_for(cfg: Config, rec: LedgerRecord) -> AlarmOutcome | None:
    """Run the alarm of ``rec``'s schedule if its verdict asks for it (None: nothing to run)."""
    sched = wanted(cfg, rec)
    return fire(cfg, sched, rec) if sched is not None else None
