"""Why a run failed: :class:`Failure`, one class per run from its evidence, and :func:`classify`.

The class is decided once, where the evidence is (the host that graded the run, :func:`classify` on its
verdict), and stored in the run's ledger record (``LedgerRecord.failure``), so ``report``, ``bench-report``,
BENCHMARK.html, COMPARE.html, ``tune`` and every ``--json`` read the same thing.  In order, the first that
applies:

| class | evidence |
|---|---|
| ``infra`` | the job could not run or could not be graded (status ``infra``/``error``, or a golden check could not be run: checks dimension ``error``): the host, not the swarm |
| ``hang`` | the swarm was killed at its timeout (exit 124) |
| ``stub`` | the code holds a stub a check ran into, a placeholder nothing replaces, or a ``breakpoint``/``pdb`` |
| ``narrator`` | a task reported done with zero tool calls (it talked instead of acting) |
| ``stub`` | (after narrator) a real function raises ``NotImplementedError`` on some path, and checks fail |
| ``crash`` | a golden check's output (or its golden-table rows) holds a traceback, or the swarm reported failure (failed tasks, no report, caps hit) |
| ``liar`` | the swarm claimed success (exit 0, no blocking failure) and golden checks fail |
| ``starved`` | the app works, but a device got no task and the run failed for it |
| ``other`` | the run failed for a reason outside these (an exploratory judge's finding, say) |
| ``ok`` | the run passed |

Besides the class: the failing golden checks, the requirements they cover (the suite's ``covers``), and the
devices that got no task (starvation is recorded whatever the class).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import Field

from swarmgym.models.base import Model
from swarmgym.models.verdict import Verdict

FailureKind = Literal["ok", "infra", "hang", "stub", "narrator", "crash", "liar", "starved", "other"]
#: every class, in the order they are tested (ok last): what reports list
FAILURE_KINDS: tuple[str, ...] = ("liar", "narrator", "stub", "crash", "hang", "starved", "infra", "other", "ok")
TRACEBACK = "Traceback (most recent call last)"
STUB_BLOCKERS = ("reached stub", "placeholder", "breakpoint", "pdb")


class Failure(Model):
    """One run's failure class and what it failed on (``kind="ok"``: it passed)."""

    schema_version: int = 1
    """Version of this record's shape."""
    kind: FailureKind
    """The class (see the module docstring for the order they are tested in)."""
    reason: str = ""
    """One line: the evidence behind the class."""
    checks: list[str] = Field(default_factory=list)
    """The golden checks that failed."""
    requirements: list[str] = Field(default_factory=list)
    """The requirements those checks cover (the suite's ``covers``), sorted."""
    starved: list[str] = Field(default_factory=list)
    """Devices that got no task in this run."""


def classify(status: str, verdict: Verdict | None, covers: Mapping[str, Sequence[str]] | None = None,
             *, error: str = "") -> Failure:
    """The failure class of one run from its job status and verdict; ``covers`` maps a check's name to the
    requirements it answers for (without it the requirements stay empty)."""
    if status in ("infra", "error") or verdict is None:
        return Failure(kind="infra", reason=error or f"the job ended with status {status} and no verdict")
    dims = verdict.dimensions
    if (graded := dims.get("checks")) is not None and graded.status == "error":  # a check could not be run
        return Failure(kind="infra", reason=f"golden checks could not be run: {graded.summary}")
    swarm = dims.get("swarm")
    checks = dims.get("checks")
    diag = dims.get("diagnostics")
    cluster = dims.get("cluster")
    results = (checks.data.get("results") or []) if checks else []
    failed = [r for r in results if not r.get("passed")]
    names = [str(r.get("name")) for r in failed]
    reqs = sorted({q for n in names for q in (covers or {}).get(n, ())})
    starved = [str(s.get("device")) for s in ((cluster.data.get("shares") or []) if cluster else [])
               if s.get("state") == "starved"]
    base = {"checks": names, "requirements": reqs, "starved": starved}
    sdata = swarm.data if swarm else {}
    if status == "timeout" or sdata.get("timed_out"):
        return Failure(kind="hang", reason=f"the swarm was killed at its timeout after {sdata.get('wall_secs', 0):.0f}s",
                       **base)
    if verdict.functional:
        if verdict.overall == "fail" and starved:
            return Failure(kind="starved", reason=f"the app works but {', '.join(starved)} got no task", **base)
        if verdict.overall == "fail":
            why = next((f.message for f in verdict.findings if f.severity == "high"), "a dimension failed")
            return Failure(kind="other", reason=why, **base)
        return Failure(kind="ok", **base)
    blockers = (diag.data.get("blockers") or []) if diag else []
    stubs = [b for b in blockers if b.get("what") in STUB_BLOCKERS]
    if stubs:
        b = stubs[0]
        return Failure(kind="stub", reason=f"{b.get('what')} at {b.get('file')}:{b.get('line')}", **base)
    narration = (diag.data.get("narration") or []) if diag else []
    if narration:
        return Failure(kind="narrator", reason=f"task(s) {', '.join(map(str, narration))} reported done with "
                                               f"zero tool calls", **base)
    raises = [x for x in ((diag.data.get("smells") or []) if diag else []) if x.get("what") == "NotImplementedError"]
    if raises and failed:
        x = raises[0]
        return Failure(kind="stub", reason=f"NotImplementedError left in at {x.get('file')}:{x.get('line')}", **base)
    traced = [r for r in failed if TRACEBACK in (r.get("stderr_tail") or "") + (r.get("stdout_tail") or "")
              or "traceback" in (r.get("detail") or "").lower()]
    if traced:
        return Failure(kind="crash", reason=f"golden check {traced[0].get('name')!r} ran into a traceback", **base)
    claimed = swarm is not None and swarm.status in ("pass", "partial")
    if claimed and failed:
        return Failure(kind="liar", reason=f"the swarm claimed success (exit {sdata.get('exit_code')}) and "
                                           f"{len(failed)} golden check(s) fail", **base)
    if swarm is not None and swarm.status == "fail":
        return Failure(kind="crash", reason=f"the swarm reported failure: {swarm.summary}", **base)
    return Failure(kind="other", reason="not functional, no swarm evidence to say why", **base)


def regraded(original: Failure | None, swarm_status: str | None, failed: Sequence[str],
             covers: Mapping[str, Sequence[str]]) -> Failure:
    """The class of a run re-graded under another suite (only its checks ran again): ``ok`` when every check
    passes; else the original run's own class when it had one that the swarm's evidence decided, else
    ``liar`` when the swarm had claimed success, else ``crash``."""
    reqs = sorted({q for n in failed for q in covers.get(n, ())})
    starved = list(original.starved) if original else []
    if not failed:
        return Failure(kind="ok", starved=starved)
    if original is not None and original.kind not in ("ok", "liar", "other"):
        kind, why = original.kind, f"as the original run: {original.reason}"
    elif swarm_status in ("pass", "partial"):
        kind, why = "liar", f"the swarm claimed success and {len(failed)} golden check(s) of the new suite fail"
    else:
        kind, why = "crash", "the swarm reported failure"
    return Failure(kind=kind, reason=why, checks=list(failed), requirements=reqs, starved=starved)
