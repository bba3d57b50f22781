"""``swarmgym bench`` as a user runs it: a real process, the real simulator, a real ledger."""
import json
import os
import re
import signal
import subprocess
import sys
import time

import psutil
import pytest

from swarmgym.sim.fleet import FAULT_KINDS
from swarmgym.suitekit.suite import load_suite
from tests.support.fleets import write_fleet
from tests.support.queue import tiny_bench_home

ENV = {**os.environ, "SWARMGYM_SIM_TIME_SCALE": "0.01", "COLUMNS": "200"}
for k in list(ENV):
    if k.startswith(("GOOSE_SWARM_", "SWARMGYM_")) and k != "SWARMGYM_SIM_TIME_SCALE":
        ENV.pop(k)
ENV["SWARMGYM_SWARM_TIMEOUT"] = "90"  # a drawn hang fault must not stall the suite


def swarmgym(home, *args, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), *args], capture_output=True,
                          text=True, env={**ENV, **(env or {})}, timeout=600, **kw)


def _cwd_in(p, root) -> bool:
    try:
        return p.info["status"] != psutil.STATUS_ZOMBIE and p.cwd().startswith(str(root))
    except psutil.Error:
        return False


def ledger_lines(home):
    p = home / "ledger" / "sessions.jsonl"
    lines = [json.loads(line) for line in p.read_text().splitlines() if line.strip()] if p.exists() else []
    return [x for x in lines if x["kind"] == "session"]  # a finished campaign adds its campaign record


@pytest.mark.slow  # full bench-v6 jobs
def test_light_bench_runs_every_bench_v6_spec_once_and_leaves_ledger_benchmark_md_and_reports(tmp_path):
    """The README's main command: the default suite is bench-v6, light runs each of its nine specs once (a fleet
    without faults: every app is the reference, graded without a row to confirm, and no run hangs)."""
    fleet = write_fleet(tmp_path / "fleet.yaml", faults={"mlx": dict.fromkeys(FAULT_KINDS, 0.0)})
    r = swarmgym(tmp_path, "bench", "--tier", "light", "--variant", "mlx", "--swarm", "sim", "--parallel", "2",
                 env={"SWARMGYM_SIM_FLEET": str(fleet)})
    assert r.returncode == 0, r.stderr
    recs = ledger_lines(tmp_path)
    assert sorted(x["spec"] for x in recs) == sorted(s.id for s in load_suite("bench-v6").specs)
    assert len(recs) == 9 and {"crud", "compute", "txn", "extend"} <= {x["spec"] for x in recs}
    assert all(x["suite"] == "bench-v6" and x["suite_hash"] == load_suite("bench-v6").hash for x in recs)
    assert all(x["mode"] == "benchmark" for x in recs)
    assert (tmp_path / "runs" / "BENCHMARK.md").read_text().startswith("# Benchmark")
    assert len(list((tmp_path / "runs").glob("*/report.html"))) == 9
    assert "functional" in r.stdout


def test_a_tiny_light_bench_records_every_job_and_writes_the_reports(tmp_path):
    """The fast twin of the test above: the same bench path with tiny real jobs (the command adapter
    writes a file, a one-check suite grades it in the box)."""
    home = tmp_path / "home"
    tiny_bench_home(home, specs=3)
    r = swarmgym(home, "bench", "--tier", "light", "--variant", "mlx", "--swarm", "command", "--parallel", "2")
    assert r.returncode == 0, r.stderr
    recs = ledger_lines(home)
    assert len(recs) == 3 and {x["spec"] for x in recs} == {"touch", "touch-b", "touch-c"}
    assert all(x["functional"] and x["provenance"]["adapter"] == "command" and x["suite"] == "tiny-v1" for x in recs)
    assert (home / "runs" / "BENCHMARK.md").read_text().startswith("# Benchmark")
    assert len(list((home / "runs").glob("*/report.html"))) == 3
    assert "functional" in r.stdout
    page = (home / "runs" / "BENCHMARK.html").read_text()
    links = set(re.findall(r'href="([^"]+)"', page))
    assert {f"{x['session_id']}/report.html" for x in recs} <= links        # every run linked to its report
    assert all((home / "runs" / href).is_file() for href in links)          # and every link resolves


def test_bench_says_exploratory_options_are_ignored(tmp_path):
    home = tmp_path / "home"
    tiny_bench_home(home)  # a tiny real job: the message is the bench's, whatever the suite
    r = swarmgym(home, "bench", "--tier", "smoke", "--turns", "3", "--no-judge", "--tweak")
    assert r.returncode == 0, r.stderr
    assert "--turns, --no-judge, --tweak ignored in benchmark mode" in r.stdout


def test_records_carry_the_swarm_flags_in_effect(tmp_path):
    home = tmp_path / "home"
    tiny_bench_home(home)
    r = swarmgym(home, "bench", "--tier", "smoke", env={"GOOSE_SWARM_REVIEW": "1"})
    assert r.returncode == 0, r.stderr
    assert ledger_lines(home)[0]["flags"] == {"GOOSE_SWARM_REVIEW": "1"}


@pytest.mark.slow  # full bench-v2 jobs
def test_sigkill_mid_campaign_keeps_finished_runs_once_and_resume_finishes(tmp_path):
    # a fleet without faults: every job builds the reference (graded without a row to confirm) and none hangs
    fleet = write_fleet(tmp_path / "fleet.yaml", faults={"mlx": dict.fromkeys(FAULT_KINDS, 0.0)})
    env = {**ENV, "SWARMGYM_SIM_FLEET": str(fleet)}
    proc = subprocess.Popen([sys.executable, "-m", "swarmgym", "--home", str(tmp_path), "bench", "--tier", "light",
                             "--suite", "bench-v2"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(ledger_lines(tmp_path)) < 1:
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)  # only the bench process: its orphan guard must clean up the swarm
    proc.wait()
    time.sleep(1.0)
    left = [p for p in psutil.process_iter(["cmdline", "status"])
            if p.info["status"] != psutil.STATUS_ZOMBIE and str(tmp_path) in " ".join(p.info["cmdline"] or [])
            or _cwd_in(p, tmp_path)]
    assert left == [], f"swarm processes outlived the killed bench: {left}"
    first = ledger_lines(tmp_path)
    assert 1 <= len(first) < 3, "kill should land mid-campaign"
    cid = first[0]["campaign_id"]
    r = swarmgym(tmp_path, "report")
    assert r.returncode == 0, r.stderr
    r = swarmgym(tmp_path, "bench", "--resume", cid, env={"SWARMGYM_SIM_FLEET": str(fleet)})
    assert r.returncode == 0, r.stderr
    recs = ledger_lines(tmp_path)
    assert sorted(x["job_id"] for x in recs) == [f"{cid}-000", f"{cid}-001", f"{cid}-002"]
    assert {x["session_id"]: x for x in first}.keys() <= {x["session_id"] for x in recs}


def test_resume_of_unknown_campaign_is_one_line_error(tmp_path):
    r = swarmgym(tmp_path, "bench", "--resume", "nope")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().count("\n") == 0 and "nope" in r.stderr


def test_bad_tier_is_a_usage_error(tmp_path):
    r = swarmgym(tmp_path, "bench", "--tier", "huge")
    assert r.returncode == 2 and "--tier" in r.stderr


@pytest.mark.slow  # full bench-v2 jobs
def test_flag_that_lowers_a_fault_rate_shows_in_the_head_to_head(tmp_path):
    """Same variant, same seeds, GOOSE_SWARM_REVIEW=1 (here it removes the liar fault, which every plain run
    draws: a fleet file plants the effect, so one light campaign per arm shows it): the flag arm never does
    worse on a spec, does better on at least one, and the sign test and McNemar say so."""
    no_fault = dict.fromkeys(("stub", "crash", "narrator", "starved", "garbage"), 0.0)
    fleet = write_fleet(tmp_path / "fleet.yaml", faults={"gguf": {"liar": 1.0, **no_fault}},
                        effects=[{"when": {"GOOSE_SWARM_REVIEW": "on"}, "scale": {"liar": 0.0}}])
    for env in ({}, {"GOOSE_SWARM_REVIEW": "1"}):
        r = swarmgym(tmp_path, "bench", "--tier", "light", "--variant", "gguf", "--parallel", "2", "--suite", "bench-v2",
                     env={"SWARMGYM_SIM_FLEET": str(fleet), **env})
        assert r.returncode == 0, r.stderr
    assert len(ledger_lines(tmp_path)) == 6
    r = swarmgym(tmp_path, "bench-report", env={"SWARMGYM_SIM_FLEET": str(fleet)})
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "runs" / "BENCHMARK.md").read_text()
    h2h = md[md.index("## Head-to-head"):md.index("## Per variant")]
    assert "gguf (sim) vs gguf (sim) [GOOSE_SWARM_REVIEW=1]" in h2h
    rows = re.findall(r"^\| (compute|crud|txn) \| ([\d.]+) % \(1\) \| ([\d.]+) % \(1\) \|", h2h, re.M)
    assert len(rows) == 3
    assert all(float(review) >= float(plain) for _, plain, review in rows)
    assert any(float(review) > float(plain) for _, plain, review in rows)
    # every comparison reads B − A (B = the flag arm): B's wins first, then A's (issue #32)
    sign = re.search(r"gguf \(sim\) \[GOOSE_SWARM_REVIEW=1\] better on (\d+), gguf \(sim\) better on (\d+)", h2h)
    assert sign, h2h
    assert int(sign.group(1)) >= 1 and int(sign.group(2)) == 0
    mcnemar = re.search(r"(\d+) only gguf \(sim\) passed, (\d+) only gguf \(sim\) \[GOOSE_SWARM_REVIEW=1\] passed",
                        h2h)
    assert mcnemar, h2h
    assert int(mcnemar.group(1)) == 0 and int(mcnemar.group(2)) >= 1


def _swarms_under(root):
    return [p for p in psutil.process_iter(["cmdline", "status"])
            if "swarm" in " ".join(p.info["cmdline"] or []) and _cwd_in(p, root)]


@pytest.mark.slow  # a bench whose swarm hangs, killed: more than a few seconds
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killing_bench_mid_swarm_leaves_no_swarm_running(tmp_path, sig):
    env = {**ENV, "SWARMGYM_SIM_FORCE": "hang", "SWARMGYM_SWARM_TIMEOUT": "300"}
    proc = subprocess.Popen([sys.executable, "-m", "swarmgym", "--home", str(tmp_path), "bench", "--tier", "smoke"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and not _swarms_under(tmp_path / "apps"):
        time.sleep(0.2)
    assert _swarms_under(tmp_path / "apps"), "the hung swarm should be running"
    os.kill(proc.pid, sig)
    proc.wait(timeout=30)
    deadline = time.time() + 5
    while time.time() < deadline and _swarms_under(tmp_path / "apps"):
        time.sleep(0.2)
    assert _swarms_under(tmp_path / "apps") == []


def test_two_campaigns_started_in_the_same_second_get_distinct_ids(tmp_path):
    from swarmgym.campaigns.bench import new_bench_campaign
    from swarmgym.config import load_config

    cfg = load_config(tmp_path, environ={})
    a = new_bench_campaign(cfg, "smoke", "mlx", swarm="sim", flags={})
    b = new_bench_campaign(cfg, "smoke", "mlx", swarm="sim", flags={})
    assert a.campaign_id != b.campaign_id and a.jobs[0].job_id != b.jobs[0].job_id
    assert (a.jobs[0].seed, b.jobs[0].seed) == (0, 1000)  # a repeat draws fresh simulated faults
    assert (a.seed, b.seed) == (0, 1000)  # the plan records them
