"""The verdicts of the run-time probes, decided outside the box from what :mod:`.boxed` brought back.

Each function takes the probe and the driver's facts and returns ``(passed, one-line detail)``.
"""
from __future__ import annotations

from typing import Any

from swarmgym.grading.probes.boxed import Ran
from swarmgym.grading.probes.match import decode, same, shown
from swarmgym.suitekit.probes import TX_CONTROL, ApiCall, Probe

MAX_SHOWN = 5


def _facts(app: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in app.get("facts") or [] if isinstance(f, dict)]


def _by_call(app: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Each call's first fact (by its index)."""
    first: dict[int, dict[str, Any]] = {}
    for f in _facts(app):
        if isinstance(f.get("i"), int) and f["i"] not in first:
            first[f["i"]] = f
    return first


def _ended(app: dict[str, Any]) -> str:
    if app.get("timed_out"):
        return "it timed out"
    if app.get("code") is None:
        return "the process was killed"
    return f"the process ended with exit {app.get('code')}"


def _call_text(c: ApiCall) -> str:
    args = [shown(a) for a in c.args] + [f"{k}={shown(v)}" for k, v in c.kwargs.items()]
    return f"{c.attribute()}({', '.join(args)})"


def _call_problem(c: ApiCall, rec: dict[str, Any] | None, app: dict[str, Any]) -> str | None:
    if rec is None:
        return f"{_call_text(c)} never returned ({_ended(app)})"
    raised = rec.get("raised")
    if c.raises is not None:
        want = c.raises if "." in c.raises else f"builtins.{c.raises}"
        if isinstance(raised, list) and want in raised:
            return None
        got = (f"raised {str(raised[0]).removeprefix('builtins.')}" if isinstance(raised, list) and raised
               else f"= {shown(decode(rec.get('value')))}")
        return f"{_call_text(c)} {got}, want {c.raises}"
    if isinstance(raised, list):
        name = str(raised[0]).removeprefix("builtins.") if raised else "?"
        return f"{_call_text(c)} raised {name}: {shown(rec.get('message', ''))}, want {shown(c.want)}"
    if same(c.want, rec.get("value"), c.unordered):
        return None
    return f"{_call_text(c)} = {shown(decode(rec.get('value')))}, want {shown(c.want)}"


def api(probe: Probe, ran: Ran) -> tuple[bool, str]:
    calls = probe.calls or []
    app = ran.apps[0]
    first = _by_call(app)
    problems = [p for n, c in enumerate(calls) if (p := _call_problem(c, first.get(n), app)) is not None]
    if not problems:
        return True, f"{len(calls)}/{len(calls)} calls as wanted"
    more = f" (+{len(problems) - MAX_SHOWN} more)" if len(problems) > MAX_SHOWN else ""
    return False, f"{len(problems)}/{len(calls)} calls differ: " + "; ".join(problems[:MAX_SHOWN]) + more


def imports(probe: Probe, ran: Ran) -> tuple[bool, str]:
    modules = probe.modules or []
    app = ran.apps[0]
    first = _by_call(app)
    problems = []
    for n, name in enumerate(modules):
        rec = first.get(n)
        if rec is None:
            problems.append(f"import {name} never finished ({_ended(app)})")
        elif isinstance(rec.get("raised"), list):
            raised = rec["raised"]
            kind = str(raised[0]).removeprefix("builtins.") if raised else "?"
            problems.append(f"import {name} raised {kind}: {shown(rec.get('message', ''))}")
    if problems:
        return False, f"{len(problems)}/{len(modules)} modules do not import: " + "; ".join(problems[:MAX_SHOWN])
    return True, f"{len(modules)}/{len(modules)} modules import"


def _runs_ok(probe: Probe, ran: Ran) -> str | None:
    runs = probe.runs or []
    for argv, app in zip(runs, ran.runs):
        if app.get("timed_out") or app.get("code") != 0:
            return f"`{' '.join(argv)}` did not exit 0 ({_ended(app)})"
    if len(ran.runs) < len(runs):
        return f"`{' '.join(runs[len(ran.runs)])}` never ran ({_ended(ran.apps[0])})"
    return None


def _by_file(ran: Ran, key: str, skip: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """App file -> what it did (SQL keywords, file events), from every run's facts."""
    out: dict[str, set[str]] = {}
    for app in ran.runs:
        for f in _facts(app):
            if isinstance(f.get(key), str) and f[key] not in skip:
                out.setdefault(str(f.get("file")), set()).add(f[key])
    return out


def _owned(probe: Probe, by_file: dict[str, set[str]], what: str, verb: str) -> str | None:
    others = {k: v for k, v in by_file.items() if k != probe.owner}
    if not others:
        return None
    named = ", ".join(f"{k} ({' '.join(sorted(v))})" for k, v in sorted(others.items()))
    return f"{what} from {named}; only {probe.owner} may {verb}"


def sql_owner(probe: Probe, ran: Ran) -> tuple[bool, str]:
    if (bad := _runs_ok(probe, ran)) is not None:
        return False, bad
    by_file = _by_file(ran, "sql", TX_CONTROL)
    if not by_file:
        return False, "no SQL statement ran in any run"
    if (bad := _owned(probe, by_file, "SQL was run", "run SQL")) is not None:
        return False, bad
    db = ran.facts.get("db") or {}
    if probe.db_created and not db.get("sqlite"):
        return False, "{db} " + ("is not a SQLite 3 file" if db.get("exists") else "was never created")
    return True, f"{len(probe.runs or [])} runs: every SQL statement came from {probe.owner}"


def file_owner(probe: Probe, ran: Ran) -> tuple[bool, str]:
    if (bad := _runs_ok(probe, ran)) is not None:
        return False, bad
    by_file = _by_file(ran, "touch")
    if not by_file:
        return False, "no run opened, wrote or replaced {db}"
    if (bad := _owned(probe, by_file, "{db} was touched", "touch it")) is not None:
        return False, bad
    db = ran.facts.get("db") or {}
    if (probe.db_created or probe.db_json) and not db.get("exists"):
        return False, "{db} was never created"
    if probe.db_json and not db.get("json"):
        return False, "{db} does not hold one JSON document"
    return True, f"{len(probe.runs or [])} runs: only {probe.owner} touched {{db}}"


def pytest(probe: Probe, ran: Ran) -> tuple[bool, str]:
    app = ran.apps[0]
    facts = _facts(app)
    finish = next((f for f in facts if "finish" in f), None)
    failed = [str(f.get("test")) for f in facts if f.get("outcome") == "failed"]
    if finish is None:
        return False, f"pytest never finished its session ({_ended(app)}): a conftest, plugin or test ended it"
    collected, status = finish.get("collected"), finish.get("finish")
    if failed or status != 0 or app.get("code") != 0:
        names = ", ".join(failed[:MAX_SHOWN]) or "no test failed"
        return False, f"pytest exit status {status} (process exit {app.get('code')}): {names}"
    least = probe.min_tests if probe.min_tests is not None else 1
    if not isinstance(collected, int) or collected < least:
        return False, f"pytest ran {collected} test(s), want at least {least}"
    return True, f"pytest: {collected} test(s) passed"


DECIDE = {"imports": imports, "api": api, "sql_owner": sql_owner, "file_owner": file_owner, "pytest": pytest}
