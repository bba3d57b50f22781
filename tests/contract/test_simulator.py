"""The simulator passes for goose: its output fits the goose schema the fixtures fit, and a tool
written for real goose (the public harness's reading code) reads every run completely, at goose's
default paths, with figures that make physical sense."""
from __future__ import annotations

import json
import math

import pytest

from tests.contract import goose_schema as schema
from tests.contract import harness_reader as harness
from tests.support.goose import run_goose
from tests.support.simrun import suite

SPECS = suite().specs
RUNS = {  # name -> (spec index, extra env)
    "reference": (0, {"SWARMGYM_SIM_FORCE": "reference"}),
    "crash": (1, {"SWARMGYM_SIM_FORCE": "crash", "SWARMGYM_SIM_VARIANT": "gguf"}),
    "narrator": (2, {"SWARMGYM_SIM_FORCE": "narrator"}),
    # faults are forced: an unforced draw may pick garbage or hang, which a goose client cannot read either
    "gguf": (1, {"SWARMGYM_SIM_VARIANT": "gguf", "GOOSE_SWARM_PREREVIEW": "0", "SWARMGYM_SIM_FORCE": "starved"}),
    "rep-a": (2, {"SWARMGYM_SIM_FORCE": "reference"}),
    "rep-b": (2, {"SWARMGYM_SIM_FORCE": "reference"}),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("contract")
    home = root / "home"
    out = {}
    for name, (spec, env) in RUNS.items():
        ws = root / "apps" / name
        res = run_goose(home, ws, "swarm", "run", SPECS[spec].prompt, "--output-format", "json", **env)
        assert res.returncode in (0, 1), res.stderr[-2000:]
        out[name] = (home, ws, res)
    return out


@pytest.mark.parametrize("name", list(RUNS))
def test_simulator_output_fits_the_goose_schema(runs, name):
    home, ws, res = runs[name]
    schema.check_report(harness.report(res.stdout))
    log = harness.latest_log(ws)
    assert log is not None
    evs = schema.check_log(log)
    assert evs[0]["event"] == "run_started" and evs[-1]["event"] == "run_finished"
    schema.check_sessions(harness.sessions_db(home))


@pytest.mark.parametrize("name", list(RUNS))
def test_a_tool_written_for_goose_reads_every_sim_run_completely(runs, name):
    home, ws, res = runs[name]
    rep = harness.report(res.stdout)  # the whole stdout is the report, as goose prints it
    log = harness.latest_log(ws)
    evs = harness.events(log)
    assert sorted(harness.plan_ids(evs)) == sorted(t["task_id"] for t in rep["tasks"])
    for t in rep["tasks"]:
        if t["session_id"]:
            assert harness.trace(home, t["session_id"]), f"no trace for {t['task_id']} at goose's default path"
    occ = harness.occupancy(evs)
    assert occ["measurable"] and 0 < occ["occupancy"] <= 1, occ
    assert next(e for e in evs if e["event"] == "run_finished")["report"] == rep


@pytest.mark.parametrize("name", list(RUNS))
def test_one_clock_stamps_everything_so_every_derived_figure_holds(runs, name):
    home, ws, res = runs[name]
    rep = harness.report(res.stdout)
    evs = harness.events(harness.latest_log(ws))
    times = [harness.when(e["ts"]) for e in evs]
    assert times == sorted(times), "timestamps go backwards"
    pool = {d["id"]: d["weight"] for d in evs[0]["pool"]}
    started: dict[str, float] = {}
    spans: dict[str, tuple[float, float]] = {}
    in_flight: dict[str, int] = {}
    running: dict[str, str] = {}
    for e, t in zip(evs, times):
        if e["event"] == "task_dispatched":
            assert e["device"] in pool, "work went to a device goose did not list"
            started[e["task_id"]], running[e["task_id"]] = t, e["device"]
            in_flight[e["device"]] = in_flight.get(e["device"], 0) + 1
            assert in_flight[e["device"]] <= pool[e["device"]], "more tasks in flight than the device's weight"
        elif e["event"] in ("task_retry", "task_completed"):
            in_flight[running[e["task_id"]]] -= 1
            if e["event"] == "task_completed":
                span_ms = (t - started[e["task_id"]]) * 1000
                assert span_ms + 1 >= e["elapsed_ms"], f"{e['task_id']}: elapsed {e['elapsed_ms']} > span {span_ms}"
                assert math.isclose(span_ms, e["elapsed_ms"], abs_tol=1.5)
                spans[e["task_id"]] = (started[e["task_id"]], t)
    by_id = {t["task_id"]: t for t in rep["tasks"]}
    completed = {e["task_id"]: e for e in evs if e["event"] == "task_completed"}
    for tid, e in completed.items():
        assert by_id[tid]["elapsed_ms"] == e["elapsed_ms"], f"{tid}: report and log disagree on elapsed_ms"
    busy = sum(a["elapsed_ms"] for t in rep["tasks"] for a in t["attempt_history"])
    assert busy == sum(d["busy_ms"] for d in rep["per_device"].values())
    msgs = schema.check_sessions(harness.sessions_db(home))
    for tid, (t0, t1) in spans.items():
        created = [c for _r, _i, c in msgs[by_id[tid]["session_id"]]]
        assert created and math.floor(t0) <= min(created) and max(created) <= math.ceil(t1), tid


def test_reps_without_a_seed_differ_and_never_share_a_session(runs):
    a, b = runs["rep-a"][2], runs["rep-b"][2]
    assert a.stdout != b.stdout
    sids = [t["session_id"] for r in runs.values() for t in harness.report(r[2].stdout)["tasks"] if t["session_id"]]
    assert len(sids) == len(set(sids))
    seeds = {json.loads(next((ws / ".swarm").glob("run-*.sim.json")).read_text())["seed"] for _h, ws, _r in runs.values()}
    assert len(seeds) == len(runs)


def test_a_disabled_device_is_absent_from_run_started_and_the_rest_all_work(tmp_path):
    home = tmp_path / "home"
    res = run_goose(home, tmp_path / "ws0", "swarm", "pool", "disable", "gguf-box")
    assert res.returncode == 0 and (home / ".config" / "goose" / "sim-pool.json").is_file()
    res = run_goose(home, tmp_path / "ws", "swarm", "run", SPECS[0].prompt, "--output-format", "json",
                    SWARMGYM_SIM_FORCE="reference")
    evs = harness.events(harness.latest_log(tmp_path / "ws"))
    pool = [d["id"] for d in evs[0]["pool"]]
    assert "gguf-box" not in pool and len(pool) == 3
    worked = {e["device"] for e in evs if e["event"] == "task_dispatched"}
    assert worked == set(pool)  # no "enabled device received no work" for a device that is off
    assert harness.occupancy(evs)["n_devices"] == 3


def test_xdg_data_home_moves_the_sessions_and_swarmgym_collect_finds_them(tmp_path, monkeypatch):
    from swarmgym.collect import collect
    from swarmgym.collect.report import parse_report
    from swarmgym.config import load_config
    from swarmgym.models import RunOutcome

    xdg = tmp_path / "xdg"
    ws = tmp_path / "ws"
    res = run_goose(tmp_path / "home", ws, "swarm", "run", SPECS[1].prompt, "--output-format", "json",
                    SWARMGYM_SIM_FORCE="reference", XDG_DATA_HOME=str(xdg))
    assert (xdg / "goose" / "sessions" / "sessions.db").is_file()
    assert not (tmp_path / "home" / ".local").exists()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GOOSE_PATH_ROOT", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    report, problems = parse_report(res.stdout)
    outcome = RunOutcome(adapter="goose", exit_code=res.returncode, report=report, report_source="stdout")
    ev = collect(ws, outcome, load_config(tmp_path / "sg", environ={}))
    assert ev.traces and all(t.found for t in ev.traces.values())
    assert not problems and not ev.problems
