"""``swarmgym-sim swarm run``: play one swarm run and write what goose writes, where goose writes it.

stdout: goose's RunReport, pretty-printed (or garbage, for the garbage fault); stderr: progress and
the seed; ``.swarm/run-<run_id>.jsonl`` events (with a ``run-<run_id>.sim.json`` sidecar naming the
seed); ``.swarm/activity/<task>.json``; one goose session per task in goose's ``sessions.db``
(:mod:`swarmgym.collect.goose_paths`); the app itself in the workspace (the suite's reference app, or a
mutant for the liar/stub/crash faults).  One simulated clock (:mod:`swarmgym.sim.clock`) stamps
everything.  No ``SWARMGYM_SIM_SEED`` → a fresh seed per run; the same seed, start
(``SWARMGYM_SIM_START``), flags, fleet, pool and goose data ⇒ byte-identical stdout, log and sessions.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from swarmgym.collect.goose_config import pool_endpoint
from swarmgym.collect.goose_paths import goose_dir, sessions_db
from swarmgym.core.errors import UsageError
from swarmgym.sim.clock import SimClock, ms, parse_start
from swarmgym.sim.eventlog import EventLog
from swarmgym.sim.faults import (
    draw_faults,
    flag_on,
    parse_force,
    pick_mutant,
    rates_for,
    resolve,
    stream,
)
from swarmgym.sim.fleet import Device, effective_devices, load_fleet
from swarmgym.sim.plan import Task, find_spec, owner, plan_tasks
from swarmgym.sim.planner import ask_planner
from swarmgym.sim.report import build_report, render_stdout, tool_call
from swarmgym.sim.schedule import TaskRun, capacity, schedule
from swarmgym.sim.sessions import build_messages, create_sessions, write_messages
from swarmgym.suitekit.suite import materialize

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


def _hang(log: EventLog, at: float, err: TextIO) -> None:
    """Stop making progress and never exit, like a wedged swarm: the harness must kill the group."""
    err.write("[swarm] scheduler stalled: waiting on a worker that never answers\n")
    err.flush()
    log.write_partial(at)
    subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(3600)"],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        time.sleep(3600)


def draw_seed(env: Mapping[str, str]) -> tuple[str, bool]:
    """``SWARMGYM_SIM_SEED`` (pinned), else a fresh seed for this run."""
    pinned = (env.get("SWARMGYM_SIM_SEED") or "").strip()
    return (pinned, True) if pinned else (str(secrets.randbelow(2**31)), False)


def simulate(prompt: str, mcp: list[str], output_format: str, env: Mapping[str, str], cwd: Path,
             out: TextIO, err: TextIO) -> int:
    fleet = load_fleet(env)
    endpoint = pool_endpoint(goose_dir("config", env))
    if endpoint:  # as goose: LMSTUDIO_HOST from the pool config, then the planner is asked there
        os.environ["LMSTUDIO_HOST"] = endpoint
        try:
            reply = ask_planner(endpoint, fleet.planner_model, prompt, env)
        except (OSError, ValueError) as e:
            err.write(f"[swarm] planner {fleet.planner_model} at {endpoint} failed: {e}\n")
            return 1
        err.write(f"[swarm] planner {fleet.planner_model} at {endpoint}: {reply.chunks} chunks streamed "
                  f"({reply.bytes} bytes, first after {reply.first_chunk_secs * 1000:.1f} ms): {reply.text[:200]!r}\n")
    variant = env.get("SWARMGYM_SIM_VARIANT") or "mlx"
    seed, pinned = draw_seed(env)
    force = parse_force(env.get("SWARMGYM_SIM_FORCE"))
    scale = _time_scale(env.get("SWARMGYM_SIM_TIME_SCALE"), fleet.time_scale)
    clock = SimClock(parse_start(env.get("SWARMGYM_SIM_START")), scale)
    rngs = {k: stream(seed, prompt, k) for k in ("plan", "dispatch", "tools", "stage", "narrator", "starved", "hang")}
    target = find_spec(prompt, env)
    rates = rates_for(fleet, variant, env, hard=bool(target and target.hard))
    code, runlevel = resolve(force if force is not None else draw_faults(seed, prompt, rates))
    devices = effective_devices(fleet, env)
    enabled = [d for d in devices if d.enabled]
    db = sessions_db(env)
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
        live = [d for d in enabled if capacity(d) > 0]
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
        hang_at = None
        if "hang" in runlevel and runs:
            ends = sorted(r.final.end for r in runs)
            hang_at = ends[int(rngs["hang"].random() * max(1, len(ends) - 1))]
        reached = [r for r in runs if hang_at is None or r.final.end <= hang_at]
        session_ids = create_sessions(db, str(cwd), clock, [(r.task.task_id, r.final.model, r.final.start)
                                                            for r in reached]) if reached else {}
        report = build_report(tasks, runs, devices, planned, session_ids)
        log = EventLog(cwd, err, clock)
        log.sidecar({"seed": seed, "pinned": pinned, "start": clock.rfc3339(0.0), "time_scale": scale,
                     "sessions_db": str(db)})
        err.write(f"[swarm] seed {seed} ({'pinned' if pinned else 'fresh'}; SWARMGYM_SIM_SEED={seed} replays it)\n")
        err.write(f"[swarm] plan: {len(tasks)} tasks over {len(live)} device(s)\n")
        debug(f"{variant} run of {slug}; faults: {', '.join(sorted(filter(None, [code, *runlevel]))) or 'none'}")
        log.emit(0.0, "run_started", {
            "prompt": prompt, "planner_model": fleet.planner_model,
            "endpoint": endpoint or fleet.endpoint, "working_dir": str(cwd),
            "max_turns": fleet.max_turns, "max_attempts": fleet.max_attempts,
            "pool": [{"id": d.id, "model_id": d.model_for(variant), "weight": int(d.weight),
                      "instances": d.instances} for d in enabled]})
        log.emit(0.5, "plan_loaded", {"task_count": len(tasks), "tasks": [_plan_task(t) for t in tasks],
                                      "raw_plan_json": _raw_plan(tasks)})
        prereview = flag_on("GOOSE_SWARM_PREREVIEW", env, fleet.flag_defaults)
        done_sessions: list[dict[str, Any]] = []
        for at, kind, run, extra in _timeline(runs, prereview):
            if hang_at is not None and at > hang_at:
                _write_messages(db, clock, done_sessions, err)
                _hang(log, hang_at, err)
            clock.sleep_until(at)
            if kind == "completed":
                if not run.narrated:
                    _apply(run, staging, cwd, deleted)
                _activity(cwd, run, session_ids[run.task.task_id])
                done_sessions.append(_session(run, session_ids[run.task.task_id]))
            log.emit(at, *_event(kind, run, extra, session_ids, live, runs))
        _write_messages(db, clock, done_sessions, err)
        end = max((r.final.end for r in runs), default=0.5) + 1.0
        clock.sleep_until(end)
        log.emit(end, "run_finished", {"report": report})
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


def _plan_task(t: Task) -> dict[str, Any]:
    """One ``plan_loaded.tasks[]`` entry in goose's shape."""
    return {"id": t.task_id, "deps": list(t.deps), "files": list(t.files), "difficulty": t.difficulty, "model": None}


def _raw_plan(tasks: list[Task]) -> str:
    return json.dumps({"subtasks": [{"id": t.task_id, "description": t.title, "owned_files": t.files,
                                     "depends_on": t.deps, "difficulty": t.difficulty} for t in tasks]})


ORDER = {"retry": 0, "completed": 1, "pre_review": 2, "dispatched": 3}


def _timeline(runs: list[TaskRun], prereview: bool) -> list[tuple[float, str, TaskRun, dict[str, Any]]]:
    items: list[tuple[float, int, int, str, TaskRun, dict[str, Any]]] = []
    for n, r in enumerate(runs):
        for a_no, a in enumerate(r.attempts):
            items.append((a.start, ORDER["dispatched"], n, "dispatched", r, {"attempt": a_no, "a": a}))
            if a.outcome == "transient":
                items.append((a.end, ORDER["retry"], n, "retry", r, {"attempt": a_no, "a": a}))
        items.append((r.final.end, ORDER["completed"], n, "completed", r, {}))
        if prereview and r.status == "done":
            items.append((r.final.end + 0.1, ORDER["pre_review"], n, "pre_review", r, {}))
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    return [(at, kind, r, extra) for at, _o, _n, kind, r, extra in items]


def _event(kind: str, r: TaskRun, extra: dict[str, Any], sids: dict[str, str], live: list[Device],
           runs: list[TaskRun]) -> tuple[str, dict[str, Any]]:
    tid = r.task.task_id
    if kind == "dispatched":
        a = extra["a"]
        outputs = {x.task.task_id: x.output for x in runs}
        return "task_dispatched", {"task_id": tid, "device": a.device.id, "model": a.model,
                                   "attempt": extra["attempt"], "deps": list(r.task.deps),
                                   "owned_files": list(r.task.files),
                                   "context_slice_len": sum(len(outputs.get(d, "")) for d in r.task.deps)}
    if kind == "retry":
        a = extra["a"]
        return "task_retry", {"task_id": tid, "from_device": a.device.id, "error": a.error or "", "transient": True}
    if kind == "pre_review":
        ids = [d.id for d in live]
        spare = ids[(ids.index(r.final.device.id) + 1) % len(ids)] if r.final.device.id in ids else r.final.device.id
        return "pre_review", {"task_id": tid, "device": spare, "had_findings": False, "secs": 6.0}
    return "task_completed", {
        "task_id": tid, "status": r.status, "device": r.final.device.id, "model": r.final.model,
        "attempts": len(r.attempts), "elapsed_ms": ms(r.final.end - r.final.start), "session_id": sids[tid],
        "error": r.final.error if r.status == "failed" else None, "tool_calls": [tool_call(c) for c in r.calls]}
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
    return {"id": sid, "start": r.final.start, "end": r.final.end,
            "messages": build_messages(brief, r.calls, r.output)}


def _write_messages(db: Path, clock: SimClock, sessions: list[dict[str, Any]], err: TextIO) -> None:
    try:
        write_messages(db, clock, sessions)
    except Exception as e:  # noqa: BLE001 - a locked DB must not sink the run, as in goose
        err.write(f"[swarm] could not write sessions to {db}: {e}\n")
