"""`swarmgym compare` and `swarmgym plan` as a user runs them: real processes, the simulator, a real ledger."""
import json
import os
import subprocess
import sys
import time

import pytest

from swarmgym.campaigns.plan import Campaign, plan_jobs, save_campaign
from swarmgym.comparison.compare import Arm, CompareState, pair_round, parse_arm
from swarmgym.config import load_config
from swarmgym.core.errors import UsageError
from swarmgym.ledger import Ledger
from swarmgym.models import LedgerRecord, Provenance
from swarmgym.suitekit.suite import load_suite
from tests.support.fleets import write_fleet

ENV = {k: v for k, v in os.environ.items() if not k.startswith(("GOOSE_SWARM_", "SWARMGYM_"))}
ENV.update({"SWARMGYM_SIM_TIME_SCALE": "0.005", "SWARMGYM_SWARM_TIMEOUT": "90", "COLUMNS": "200"})


def swarmgym(home, *args, env=None):
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), *args], check=False,
                          capture_output=True, text=True, env={**ENV, **(env or {})}, timeout=900)


def ledger_lines(home):
    p = home / "ledger" / "sessions.jsonl"
    lines = [json.loads(x) for x in p.read_text().splitlines() if x.strip()] if p.exists() else []
    return [x for x in lines if x["kind"] == "session"]  # each round's campaign also leaves its campaign record


@pytest.fixture(scope="module")
def one_round(tmp_path_factory):
    """One real round in-process: gguf vs gguf with the review flag, budget 6 runs (bench-v2: a round of
    its three specs is six runs)."""
    home = tmp_path_factory.mktemp("cmp")
    # the shipped fleet without hangs (a hung run waits out the swarm timeout) or stubs (a stub breaks every golden
    # row, each confirmed in a box of its own: three times a pass to grade)
    fleet = write_fleet(home / "fleet.yaml", faults={"gguf": {"stub": 0.0}})
    r = swarmgym(home, "compare", "gguf", "gguf:GOOSE_SWARM_REVIEW=1", "--max-runs", "6", "--json",
                 "--parallel", "2", "--suite", "bench-v2", env={"SWARMGYM_SIM_FLEET": str(fleet)})
    return home, r


@pytest.mark.slow  # a compare round of six full jobs (module fixture)
def test_compare_json_in_process_records_every_run_and_reports_the_decision(one_round):
    home, r = one_round
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert {"decision", "runs", "p_value", "effect", "interval", "rounds"} <= set(out)
    assert out["decision"] == "undecided"          # 3 pairs can never reach 6 one-sided discordant pairs
    assert out["runs"] == 6 and out["rounds"] == 1 and 0 < out["p_value"] <= 1
    recs = ledger_lines(home)
    assert len(recs) == 6
    a = [x for x in recs if x["flags"] == {}]
    b = [x for x in recs if x["flags"] == {"GOOSE_SWARM_REVIEW": "1"}]
    assert len(a) == len(b) == 3 and {x["spec"] for x in a} == {x["spec"] for x in b}
    assert all(x["campaign_id"].startswith(out["compare_id"]) for x in recs)
    assert "round  1" in r.stderr                   # the live line per round (stderr under --json)


@pytest.mark.slow  # a compare round of six full jobs (module fixture)
def test_compare_page_shows_the_walk_against_its_boundary_and_the_answer_with_its_next_step(one_round):
    home, r = one_round
    out = json.loads(r.stdout)
    html = (home / "runs" / f"compare-{out['compare_id']}.html").read_text()
    assert out["page"].endswith(f"compare-{out['compare_id']}.html")
    assert html.count("<svg") == 2 and 'class="walk"' in html and html.count('class="boundary"') == 2
    assert 'data-decision="undecided"' in html and out["next"] and out["next"] in html.replace("&#39;", "'")
    assert "<script" not in html and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")


@pytest.mark.slow  # a compare round of six full jobs (module fixture)
def test_compare_says_b_minus_a_the_same_in_its_round_line_json_and_page(one_round):
    home, r = one_round
    out = json.loads(r.stdout)
    ans = out["answer"]
    assert ans["first"] == "gguf" and ans["second"] == "gguf [GOOSE_SWARM_REVIEW=1]" and ans["sign"] == "second minus first"
    assert out["effect"] == ans["effect"] and out["interval"] == ans["interval"] and out["decision"] == ans["decision"]
    assert f"B − A {100 * ans['effect']:+.1f} pp [{100 * ans['lo']:+.1f}, {100 * ans['hi']:+.1f}]" in r.stderr
    html = (home / "runs" / f"compare-{out['compare_id']}.html").read_text()
    assert (f'data-tone="{ans["tone"]}" data-decision="{ans["decision"]}" data-effect="{ans["effect"]:.4f}" '
            f'data-lo="{ans["lo"]:.4f}" data-hi="{ans["hi"]:.4f}"') in html


@pytest.mark.slow  # a compare round of six full jobs (module fixture)
def test_plan_reads_disagreement_from_paired_runs_in_the_ledger(one_round):
    home, _ = one_round
    r = swarmgym(home, "plan", "--effect", "0.2", "--json")
    assert r.returncode == 0, r.stderr
    p = json.loads(r.stdout)
    recs = ledger_lines(home)
    by = {}
    for x in recs:
        by.setdefault(x["spec"], []).append(x["functional"])
    disagree = sum(v[0] != v[1] for v in by.values())
    assert p["history_pairs"] == 3 and p["source"].startswith(f"ledger: {disagree} of 3")
    assert p["fixed_runs"] > 0 and p["sequential_runs_mean"] > 0


@pytest.mark.slow  # power tables of the default plan: more than a few seconds
def test_plan_without_history_uses_the_documented_default_and_says_so(tmp_path):
    from swarmgym.trend.sequential import fixed_pairs

    r = swarmgym(tmp_path, "plan", "--effect", "0.2")
    assert r.returncode == 0, r.stderr
    assert "discordance 0.500 — default (no paired runs in the ledger)" in r.stdout
    j = json.loads(swarmgym(tmp_path, "plan", "--effect", "0.2", "--json").stdout)
    assert j["history_pairs"] == 0 and j["discordance"] == 0.5
    assert j["fixed_runs"] == 2 * fixed_pairs(0.5, 0.2, 0.05)
    assert f"fixed design (exact McNemar): {j['fixed_runs']} runs" in r.stdout
    assert j["sequential_runs_mean"] <= j["sequential_budget_runs"]


@pytest.mark.parametrize("arm,why", [
    ("gguf:GOOSE_SWARM_REVIEW", "is not FLAG=V"),
    (":GOOSE_SWARM_REVIEW=1", "no variant"),
    ("gguf:PATH=/tmp", "is not a swarm flag"),
    ("../x", "plain name"),
    ("gguf:", "empty flag"),
])
def test_bad_arm_syntax_is_a_one_line_usage_error(arm, why):
    with pytest.raises(UsageError, match=why) as e:
        parse_arm(arm, "B")
    assert str(e.value).startswith("B: expected variant[:FLAG=V,…]") and "\n" not in str(e.value)


def test_bad_arm_on_the_command_line_exits_2_with_one_line_and_records_nothing(tmp_path):
    r = swarmgym(tmp_path, "compare", "gguf", "gguf:GOOSE_SWARM_REVIEW")
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "B: expected variant[:FLAG=V,…]" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "ledger").exists()


def test_arm_flags_are_parsed_and_labelled_like_the_report_arms():
    arm = parse_arm("gguf:GOOSE_SWARM_REVIEW=1,GOOSE_LOCAL_CONTEXT_CAP=4096", "B")
    assert arm.flags == {"GOOSE_SWARM_REVIEW": "1", "GOOSE_LOCAL_CONTEXT_CAP": "4096"}
    assert arm.label == "gguf [GOOSE_LOCAL_CONTEXT_CAP=4096, GOOSE_SWARM_REVIEW=1]"


def _record(job, functional: bool, adapter: str, seed: int) -> LedgerRecord:
    return LedgerRecord(session_id=f"s-{job.job_id}", job_id=job.job_id, campaign_id=job.campaign_id,
                        mode="benchmark", spec=job.spec, app_slug=job.app_slug, variant=job.variant, tier=job.tier,
                        suite=job.suite, suite_hash=job.suite_hash, overall="pass" if functional else "fail",
                        functional=functional, flags=job.flags, ts=time.time(),
                        provenance=Provenance(adapter=adapter, seed=seed, flags=job.flags, suite_hash=job.suite_hash))


def _campaign(tmp_path, cid, flags, swarm="sim", seed=0):
    cfg = load_config(tmp_path)
    s = load_suite("bench-v1", cfg.suites_dir)
    c = Campaign(campaign_id=cid, tier="light", variant="gguf", suite=s.name, suite_hash=s.hash, swarm=swarm,
                 flags=flags, jobs=plan_jobs(s, "light", "gguf", swarm=swarm, campaign_id=cid, flags=flags, seed=seed))
    save_campaign(cfg, c)
    return cfg, c


def test_runs_of_different_adapters_are_never_paired(tmp_path):
    _, ca = _campaign(tmp_path, "t-a", {})
    _, cb = _campaign(tmp_path, "t-b", {"GOOSE_SWARM_REVIEW": "1"})
    st = CompareState(compare_id="t", a=Arm(variant="gguf"), b=Arm(variant="gguf", flags={"GOOSE_SWARM_REVIEW": "1"}),
                      a_flags={}, b_flags={"GOOSE_SWARM_REVIEW": "1"}, suite=ca.suite, suite_hash=ca.suite_hash,
                      swarm="sim", alpha=0.05, min_effect=0.1, max_runs=6)
    recs = {j.job_id: _record(j, False, "sim", 0) for j in ca.jobs}
    recs.update({j.job_id: _record(j, True, "goose" if j.spec == "crud" else "sim", 0) for j in cb.jobs})
    rnd = pair_round(st, 1, ca, cb, recs)
    notes = {p.spec: p.note for p in rnd.pairs}
    assert notes["crud"] == "adapters differ (sim vs goose)" and notes["compute"] == notes["txn"] == ""
    assert [p.d for p in rnd.pairs if p.spec != "crud"] == [1, 1]


def test_plan_pairs_only_same_adapter_and_seed(tmp_path):
    cfg, ca = _campaign(tmp_path, "t-a", {})
    _, cb = _campaign(tmp_path, "t-b", {"GOOSE_SWARM_REVIEW": "1"})
    _, cg = _campaign(tmp_path, "t-g", {"GOOSE_SWARM_GOALS": "1"}, swarm="goose")
    ledger = Ledger(cfg.ledger_dir)
    for j in ca.jobs:
        ledger.record(_record(j, False, "sim", 0))
    for j in cb.jobs:
        ledger.record(_record(j, j.spec != "txn", "sim", 0))
    for j in cg.jobs:   # real goose runs: never paired with simulated ones
        ledger.record(_record(j, True, "goose", 0))
    r = swarmgym(tmp_path, "plan", "--effect", "0.3", "--json")
    assert r.returncode == 0, r.stderr
    p = json.loads(r.stdout)
    assert p["history_pairs"] == 3 and p["source"].startswith("ledger: 2 of 3")
    assert p["discordance"] == pytest.approx(2 / 3)
