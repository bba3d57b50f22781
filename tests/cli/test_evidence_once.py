"""Evidence counts once, and one comparison gives one answer everywhere — through the real CLI and the real
simulator (a swarm that replays its seeds)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from swarmgym.campaigns.plan import list_campaigns, load_campaign
from swarmgym.config import load_config
from tests.support.fleets import write_fleet

ENV = {k: v for k, v in os.environ.items() if not k.startswith(("GOOSE_SWARM_", "SWARMGYM_"))}
ENV.update({"SWARMGYM_SIM_TIME_SCALE": "0", "SWARMGYM_SWARM_TIMEOUT": "90", "COLUMNS": "250"})
A, B = "gguf (sim)", "mlx (sim)"          # sorted labels: gguf is the first arm, mlx the second


def swarmgym(home: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    fleet = {"SWARMGYM_SIM_FLEET": str(home / "fleet.yaml")}   # the shipped fleet without hangs or stubs
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), *args], check=False,
                          capture_output=True, text=True, env={**ENV, **fleet, **(env or {})}, timeout=900)


def bench(home: Path, variant: str, *extra: str, tier: str = "light") -> None:
    r = swarmgym(home, "bench", "--tier", tier, "--variant", variant, "--suite", "bench-v2", "--parallel", "2", *extra)
    assert r.returncode == 0, r.stderr


def h2h(home: Path) -> dict:
    r = swarmgym(home, "bench-report", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    (found,) = [h for h in doc["head_to_head"] if (h["a"], h["b"]) == (A, B)]
    return {**found["answer"], "folded": doc["folded"]}


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """gguf and mlx, each once on bench-v2's three specs with --seed 0: three pairs of a replaying swarm."""
    home = tmp_path_factory.mktemp("once")
    # no stubs: a stub breaks every golden row, each confirmed in a box of its own (three times a pass to grade)
    write_fleet(home / "fleet.yaml", faults={"gguf": {"stub": 0.0}, "mlx": {"stub": 0.0}})
    bench(home, "gguf", "--seed", "0")
    bench(home, "mlx", "--seed", "0")
    return home


@pytest.mark.slow  # five light campaigns of three simulated jobs each
def test_repeating_both_campaigns_does_not_move_the_pooled_p_value_and_the_page_says_what_was_folded(home):
    before = h2h(home)
    plan_before = json.loads(swarmgym(home, "plan", "--effect", "0.2", "--json").stdout)
    assert before["pairs"] == 3 and before["a_only"] + before["b_only"] > 0 and before["folded"] == 0
    bench(home, "gguf", "--seed", "0")            # the very same units, replayed: no new evidence
    bench(home, "mlx", "--seed", "0")
    after = h2h(home)
    assert (after["p_value"], after["pairs"], after["a_only"], after["b_only"], after["effect"]) == (
        before["p_value"], before["pairs"], before["a_only"], before["b_only"], before["effect"])
    assert after["folded"] == 6
    plan_after = json.loads(swarmgym(home, "plan", "--effect", "0.2", "--json").stdout)
    assert plan_after["history_pairs"] == plan_before["history_pairs"] == 3 and plan_after["history_folded"] == 6
    md = (home / "runs" / "BENCHMARK.md").read_text()
    assert "6 repeated run(s) of a replaying swarm folded" in md
    html = (home / "runs" / "BENCHMARK.html").read_text()
    assert "repeated run(s) of a replaying swarm folded" in html


@pytest.mark.slow
def test_a_new_campaign_draws_seeds_its_arm_never_ran_unless_seed_says_otherwise(home):
    cfg = load_config(home, environ={})
    before = set(list_campaigns(cfg))
    bench(home, "gguf", tier="smoke")             # one job is enough to show its seed
    (new,) = set(list_campaigns(cfg)) - before
    seeds = {j.seed for j in load_campaign(cfg, new).jobs}
    ran = {j.seed for c in before for j in load_campaign(cfg, c).jobs if load_campaign(cfg, c).variant == "gguf"}
    assert seeds and not seeds & ran and min(seeds) == 1000


@pytest.mark.slow
def test_the_answer_has_one_sign_interval_and_decision_in_text_json_and_both_pages(home):
    ans = h2h(home)
    text = swarmgym(home, "bench-report").stdout
    effect = f"{100 * ans['effect']:+.1f} pp"
    interval = f"[{100 * ans['lo']:+.1f} pp, {100 * ans['hi']:+.1f} pp]"
    assert f"{effect} {interval}" in " ".join(text.split())
    assert ans["verdict"] in text and ans["sign"] == "second minus first"
    page = (home / "runs" / "BENCHMARK.html").read_text()
    block = re.search(r'<div class="answer" data-tone="(\w+)" data-decision="([^"]+)" data-effect="([-\d.]+)" '
                      r'data-lo="([-\d.]+)" data-hi="([-\d.]+)">', page)
    assert block and block.group(1) == ans["tone"] and block.group(2) == ans["decision"]
    assert float(block.group(3)) == pytest.approx(ans["effect"], abs=1e-4)
    assert (float(block.group(4)), float(block.group(5))) == pytest.approx((ans["lo"], ans["hi"]), abs=1e-4)
    tone_color = {"better": "#2e7d32", "worse": "#c62828", "neutral": "#1565c0"}[ans["tone"]]
    assert f'style="color:{tone_color}">{effect}' in page.replace("&#43;", "+")
    # COMPARE.html names B second: asked the other way round, the same evidence gives the mirror answer
    r = swarmgym(home, "report", "--compare", B, A, "--json")
    assert r.returncode == 0, r.stderr
    (mirror,) = json.loads(r.stdout)["head_to_head"]
    assert (mirror["a"], mirror["b"]) == (B, A)
    m = mirror["answer"]
    assert m["effect"] == pytest.approx(-ans["effect"]) and m["p_value"] == pytest.approx(ans["p_value"])
    assert (m["lo"], m["hi"]) == pytest.approx((-ans["hi"], -ans["lo"]), abs=1e-4)
    assert {"better": "worse", "worse": "better", "neutral": "neutral"}[ans["tone"]] == m["tone"]
    compare_page = (home / "runs" / "COMPARE.html").read_text()
    assert f'data-tone="{m["tone"]}" data-decision="{m["decision"]}"' in compare_page
    assert f"{100 * m['effect']:+.1f} pp" in compare_page.replace("&#43;", "+")
