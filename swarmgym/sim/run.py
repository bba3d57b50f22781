"""``swarmgym-sim swarm run``: play one swarm run and write what goose writes.

stdout: one JSON RunReport (or garbage, for the garbage fault); stderr: progress;
``.swarm/run-<run_id>.jsonl`` events; ``.swarm/activity/<task>.json``; one goose session per
task in ``sessions.db``; the app itself in the workspace (the suite's reference app, or a
mutant for the liar/stub/crash faults).  The RunReport holds no wall-clock value: same seed,
flags, fleet and pool ⇒ byte-identical stdout.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Mapping, TextIO

from swarmgym.collect.report import is_mcp_name
from swarmgym.errors import UsageError
from swarmgym.sim.eventlog import EventLog
from swarmgym.sim.faults import (draw_faults, flag_on, parse_force, pick_mutant, rates_for, resolve, run_key,
                                 stream)
from swarmgym.sim.fleet import effective_devices, load_fleet, sim_root
from swarmgym.sim.plan import find_spec, owner, plan_tasks
from swarmgym.sim.report import build_report, render_stdout
from swarmgym.sim.schedule import TaskRun, schedule
from swarmgym.sim.sessions import build_messages, write_sessions
from swarmgym.suite import materialize

IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "*.db")


def _files(root: Path, skip: tuple[str, ...] = ()) -> list[str]:
    out = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and "__pycache__" not in p.parts and not rel.endswith((".pyc", ".db")) and rel not in skip:
            out.append(rel)
    return out


def debug(msg: str) -> None:
    """Ground truth (which fault was drawn) goes to stderr only with SWARMGYM_SIM_DEBUG=1:
    a real swarm never tells, and a judge reading the run must not be told either."""
    if os.environ.get("SWARMGYM_SIM_DEBUG") == "1":
        sys.stderr.write(f"[sim] {msg}\n")


def _stage(target, prompt: str, staging: Path, code: str | None, pick):
    """Write the app to build into ``staging``; return (slug, planned, deleted, mutant_files, code)."""
    if target is None:  # an unknown prompt: an honest small attempt, or a narrated non-result
        if pick.random() < 0.3:
            return "app", ["README.md", "app.py"], [], [], "narrate-all"
        (staging / "README.md").write_text(f"# app\n\nRequested:\n\n{prompt.strip()}\n\n"
                                           "Status: a first sketch; the requested features are not implemented yet.\n")
        (staging / "app.py").write_text('import sys\n\n\ndef main() -> int:\n    print("app: a first sketch; '
                                        'see README.md")\n    return 0\n\n\nif __name__ == "__main__":\n'
                                        '    sys.exit(main())\n')
        return "app", ["README.md", "app.py"], [], [], code if code == "narrator" else None
    suite, spec = target.suite, target.spec
    mutant = None
    if code in ("liar", "stub", "crash"):
        mutant = pick_mutant(suite, spec, code, pick, target.hard)
        if mutant:
            debug(f"building mutant {mutant.name} ({code})")
        else:
            debug(f"no {code} mutant for {spec.app_slug}; building the reference")
            code = None
    materialize(suite, spec, staging, mutant)
    ref = _files(suite.reference_dir(spec))
    built = _files(staging)
    mutant_files = mutant.touched() if mutant else []
    return spec.app_slug, sorted(set(ref) | set(built)), [f for f in ref if f not in built], mutant_files, code


def _is_code(path: str) -> bool:
    return path.endswith(".py") and not path.startswith("tests/") and "/test_" not in path


def _hang(log: EventLog, err: TextIO) -> None:
    err.write("[swarm] scheduler stalled: waiting on a worker that never answers\n")
    err.flush()
    log.write_partial()
    subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(3600)"],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        time.sleep(3600)


def simulate(prompt: str, mcp: list[str], output_format: str, env: Mapping[str, str], cwd: Path,
             out: TextIO, err: TextIO) -> int:
    fleet = load_fleet(env)
    variant = env.get("SWARMGYM_SIM_VARIANT") or "mlx"
    seed = env.get("SWARMGYM_SIM_SEED") or "0"
    force = parse_force(env.get("SWARMGYM_SIM_FORCE"))
    scale = _time_scale(env.get("SWARMGYM_SIM_TIME_SCALE"), fleet.time_scale)
    rngs = {k: stream(seed, prompt, k) for k in ("plan", "dispatch", "tools", "stage", "narrator", "starved", "hang")}
    target = find_spec(prompt, env)
    rates = rates_for(fleet, variant, env, hard=bool(target and target.hard))
    code, runlevel = resolve(force if force is not None else draw_faults(seed, prompt, rates))
    devices = effective_devices(fleet, env)
    with tempfile.TemporaryDirectory(prefix="swarmgym-sim-") as tmp:
        staging = Path(tmp)
        slug, planned, deleted, mutant_files, code = _stage(target, prompt, staging, code, rngs["stage"])
        tasks = plan_tasks(planned)
        crash_task = owner(tasks, mutant_files[0]).task_id if code == "crash" and mutant_files else None
        narrator_task = None
        if code == "narrator":
            code_tasks = [t for t in tasks if any(_is_code(f) for f in t.files)]
            with_files = code_tasks or [t for t in tasks if t.files] or tasks
            narrator_task = with_files[int(rngs["narrator"].random() * len(with_files))].task_id
        live = [d for d in devices if d.enabled and d.weight > 0]
        starved = None
        if "starved" in runlevel and len(live) > 1:
            starved = live[int(rngs["starved"].random() * len(live))]
            live = [d for d in live if d.id != starved.id]
        if not live:
            err.write("[swarm] no enabled device with weight > 0: nothing can be dispatched\n")
        runs = schedule(tasks, live, variant, minutes=rates.minutes, retry_rate=rates.retry,
                        bad_tool_rate=fleet.variant(variant).bad_tool_call_rate, max_attempts=fleet.max_attempts,
                        rngs=rngs, mcp=list(mcp), slug=slug, crash_task=crash_task,
                        narrator_task=narrator_task) if live else []
        if code == "narrate-all":
            for r in runs:
                r.narrated, r.calls = True, []
        key = run_key(seed, prompt)
        session_ids = {t.task_id: f"sim_{key}_{i}" for i, t in enumerate(tasks, 1)}
        report = build_report(tasks, runs, devices, planned, session_ids)
        err.write(f"[swarm] plan: {len(tasks)} tasks over {len(live)} device(s)\n")
        debug(f"{variant} run of {slug}; faults: {', '.join(sorted(filter(None, [code, *runlevel]))) or 'none'}")
        log = EventLog(cwd, err)
        log.emit(0.0, "run_started", prompt=prompt, planner_model=fleet.planner_model,
                 endpoint=env.get("LMSTUDIO_HOST") or fleet.endpoint, working_dir=str(cwd),
                 max_turns=fleet.max_turns, max_attempts=fleet.max_attempts,
                 pool=[{"id": d.id, "model_id": d.model_for(variant), "weight": d.weight, "instances": d.instances,
                        "enabled": d.enabled, "host": d.host} for d in devices])
        log.emit(0.5, "plan_loaded", task_count=len(tasks), planned_files=planned,
                 tasks=[{"task_id": t.task_id, "title": t.title, "files": t.files} for t in tasks])
        timeline = _timeline(runs, flag_on("GOOSE_SWARM_PREREVIEW", env, fleet.flag_defaults))
        hang_at = None
        if "hang" in runlevel and runs:
            ends = sorted(r.final.end for r in runs)
            hang_at = ends[int(rngs["hang"].random() * max(1, len(ends) - 1))]
        ws_db = sim_root(env) / "data" / "sessions" / "sessions.db"
        done_sessions = []
        for at, kind, run, extra in timeline:
            if hang_at is not None and at > hang_at:
                _write_sessions(ws_db, cwd, done_sessions, err)
                _hang(log, err)
            log.sleep_until(at, scale)
            if kind == "completed":
                if not run.narrated:
                    _apply(run, staging, cwd, deleted)
                _activity(cwd, run, session_ids[run.task.task_id])
                done_sessions.append(_session(run, session_ids[run.task.task_id]))
            log.emit(at, *_event(kind, run, extra, session_ids))
        _write_sessions(ws_db, cwd, done_sessions, err)
        end = max((r.final.end for r in runs), default=0.5) + 1.0
        log.sleep_until(end, scale)
        log.emit(end, "run_finished", report=report,
                 phases={"plan_ms": 30000, "build_ms": int((end - 1.5) * 60000), "verify_ms": 30000})
        log.close()
    if "garbage" in runlevel:
        out.write("thread 'tokio-runtime-worker' panicked at crates/goose-cli/src/commands/swarm.rs:\n"
                  "called `Result::unwrap()` on an `Err` value: Json(Error(\"EOF while parsing\"))\n"
                  + render_stdout(report, "json")[:200] + "\n")
    else:
        out.write(render_stdout(report, output_format))
    out.flush()
    return 1 if report["failed"] or (tasks and not runs) else 0


def _time_scale(raw: str | None, default: float) -> float:
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value < 0:
        raise UsageError(f"SWARMGYM_SIM_TIME_SCALE={raw!r}: expected real seconds per simulated minute (>= 0)")
    return value


def _timeline(runs: list[TaskRun], prereview: bool) -> list[tuple[float, str, TaskRun, dict[str, Any]]]:
    items: list[tuple[float, int, str, TaskRun, dict[str, Any]]] = []
    for n, r in enumerate(runs):
        for a_no, a in enumerate(r.attempts, 1):
            items.append((a.start, n, "dispatched", r, {"attempt": a_no, "a": a}))
            if a.outcome == "failed" and a_no < len(r.attempts):
                items.append((a.end, n, "retry", r, {"attempt": a_no, "a": a}))
        items.append((r.final.end, n, "completed", r, {}))
        if prereview and r.status == "done":
            items.append((r.final.end + 0.1, n, "pre_review", r, {}))
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    return [(at, kind, r, extra) for at, _n, kind, r, extra in items]


def _event(kind: str, r: TaskRun, extra: dict[str, Any], sids: dict[str, str]) -> tuple[str, dict[str, Any]] | Any:
    tid = r.task.task_id
    if kind == "dispatched":
        a = extra["a"]
        return "task_dispatched", {"task_id": tid, "device": a.device.id, "model": a.model, "attempt": extra["attempt"]}
    if kind == "retry":
        a = extra["a"]
        return "task_retry", {"task_id": tid, "device": a.device.id, "attempt": extra["attempt"], "error": a.error}
    if kind == "pre_review":
        return "pre_review", {"task_id": tid, "device": r.final.device.id, "verdict": "ok"}
    body = {"task_id": tid, "status": r.status, "device": r.final.device.id, "model": r.final.model,
            "attempts": len(r.attempts), "elapsed_ms": int(round((r.final.end - r.final.start) * 60000)),
            "session_id": sids[tid],
            "tool_calls": [{"name": c["name"], "is_mcp": is_mcp_name(c["name"]), "ok": c["ok"]} for c in r.calls],
            "output": r.output}
    if r.final.error:
        body["error"] = r.final.error
    return "task_completed", body


def _apply(r: TaskRun, staging: Path, ws: Path, deleted: list[str]) -> None:
    for rel in r.task.files:
        src, dst = staging / rel, ws / rel
        if src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
        elif rel in deleted and dst.is_file():
            dst.unlink()


def _activity(ws: Path, r: TaskRun, sid: str) -> None:
    d = ws / ".swarm" / "activity"
    d.mkdir(parents=True, exist_ok=True)
    body = {"task_id": r.task.task_id, "title": r.task.title, "files": r.task.files, "status": r.status,
            "device": r.final.device.id, "model": r.final.model, "attempts": len(r.attempts), "session_id": sid,
            "tool_calls": [c["name"] for c in r.calls]}
    (d / f"{r.task.task_id}.json").write_text(json.dumps(body, indent=2) + "\n")


def _session(r: TaskRun, sid: str) -> dict[str, Any]:
    brief = f"You are one worker of a coding swarm. Task {r.task.task_id}: {r.task.title}."
    return {"id": sid, "name": r.task.task_id, "model": r.final.model,
            "messages": build_messages(brief, r.calls, r.output)}


def _write_sessions(db: Path, cwd: Path, sessions: list[dict[str, Any]], err: TextIO) -> None:
    try:
        write_sessions(db, str(cwd), sessions)
    except Exception as e:  # noqa: BLE001 - a locked DB must not sink the run, as in goose
        err.write(f"[swarm] could not write sessions to {db}: {e}\n")
