"""BENCHMARK.html links and explains: the functional/overall legend with the page's own counts, a per-spec table
(pass rate and Wilson interval per arm, every run linked to its report.html), a run-by-run "over time" from the
first campaign on, the recent runs — and, in headless Chromium at 1280 and 800 px, no label cut off (screenshots
are written to $SWARMGYM_TEST_OUTPUT/screenshots, else the test's tmp folder, and printed)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

T, F = True, False
SPECS = ("crud", "compute", "txn", "convert", "fsm", "modular", "logs", "extend", "money")
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
DIMS = ("checks", "swarm", "cluster", "diagnostics")
LONG = {"GOOSE_SWARM_REVIEW": "1", "GOOSE_SWARM_SMOKE": "1"}  # an arm whose label is 49 characters


def bench_report(cfg) -> str:
    r = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(cfg.home), "bench-report"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return (cfg.runs_dir / "BENCHMARK.html").read_text()


def with_reports(cfg, *sids):
    for sid in sids:
        (cfg.runs_dir / sid).mkdir(parents=True, exist_ok=True)
        (cfg.runs_dir / sid / "report.html").write_text("<html>run</html>")


def light_campaign(add_runs, variant="mlx", suite_hash="h1", **fields):
    """A light campaign as the simulator leaves it: 6 of 9 functional, one of them held back by its cluster."""
    outcomes = dict(zip(SPECS, [[T], [T], [F], [T], [T], [T], [T], [F], [F]]))
    fsm = outcomes.pop("fsm")
    add_runs(variant, suite_hash, outcomes, **fields, dimensions=dict.fromkeys(DIMS, "pass"))
    add_runs(variant, suite_hash, {"fsm": fsm}, overall="fail", **fields,
             dimensions={"checks": "pass", "swarm": "pass", "cluster": "fail", "diagnostics": "pass"})


def test_the_legend_says_what_functional_and_overall_mean_and_why_this_ledger_differs(cfg, add_runs):
    light_campaign(add_runs)
    page = bench_report(cfg)
    legend = page[page.index('<div class="legend">'):page.index("</div>", page.index('<div class="legend">'))]
    assert "<dt>functional</dt>" in legend and "<dt>overall</dt>" in legend
    assert "here 6 of 9 runs are functional, 5 pass overall (pass 5, partial 0, fail 4, error 0)" in legend
    assert "1 functional run(s) are not pass overall: the app works, but cluster in 1" in legend
    assert page.index('class="legend"') < page.index("<h2>Pass rate per arm</h2>")


def test_the_per_spec_table_gives_each_arm_its_rate_and_interval_and_links_every_run(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, T, T, T, F], "compute": [T, T, T, T, T]})
    add_runs("gguf", "h1", {"crud": [F, T, F, F, T], "compute": [T, F, T, F, T]})
    with_reports(cfg, *(f"s{i:04d}" for i in range(20)))
    page = bench_report(cfg)
    table = page[page.index("<h2>Per spec</h2>"):page.index("<h2>Over time</h2>")]
    head = re.search(r"<tr><th>spec \(app\)</th>(.*?)</tr>", table).group(1)
    assert re.findall(r"<th[^>]*>([^<]+)</th>", head) == ["gguf", "mlx"]
    crud = table[table.index("<b>crud</b>"):]                                        # rows sorted: compute, crud
    assert "<b>2/5</b> = 40% <span class=\"ci\">[12–77%]</span>" in crud            # gguf, Wilson 95 %
    assert "<b>4/5</b> = 80% <span class=\"ci\">[38–96%]</span>" in crud            # mlx
    links = re.findall(r'<a class="run" href="(s\d{4})/report\.html"', table)
    assert sorted(links) == [f"s{i:04d}" for i in range(20)]                         # every run, once
    assert all((cfg.runs_dir / sid / "report.html").is_file() for sid in links)


def test_a_run_without_a_report_is_shown_but_not_linked(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, F]})
    with_reports(cfg, "s0000")
    page = bench_report(cfg)
    assert 'href="s0000/report.html"' in page and 'href="s0001/report.html"' not in page
    assert re.search(r'<span class="run" title="[^"]*s0001"', page)


def test_over_time_is_drawn_run_by_run_from_the_first_campaign(cfg, add_runs):
    light_campaign(add_runs)
    with_reports(cfg, *(f"s{i:04d}" for i in range(9)))
    page = bench_report(cfg)
    over = page[page.index("<h2>Over time</h2>"):page.index("<h2>Head-to-head")]
    assert "mlx · 1 campaign, 9 runs" in over and over.count('<g class="run"') == 9
    assert over.count('class="campaign-start"') == 1 and "campaign mlx-camp" in over
    assert over.count('href="s') == 9
    fsm = re.search(r'<g class="run" data-session="s0008" data-overall="fail" data-functional="1">', over)
    assert fsm, "the functional run held back by its cluster is drawn filled, coloured fail"


def test_three_campaigns_switch_to_one_point_per_campaign(cfg, add_runs):
    for n in range(3):
        add_runs("mlx", "h1", {"crud": [T, F], "compute": [T]}, campaign_id=f"c{n}")
    over = bench_report(cfg).split("<h2>Over time</h2>")[1]
    assert 'class="chart trend"' in over and "trend-runs" not in over and over.count('class="point"') == 3


def test_the_runs_table_lists_the_latest_runs_newest_first_with_their_reports(cfg, add_runs):
    light_campaign(add_runs)
    with_reports(cfg, "s0007")
    page = bench_report(cfg)
    runs = page[page.index("<h2>Runs</h2>"):]
    assert "The 9 most recent run(s), newest first (of 9)." in runs
    first = re.search(r"<tr><td>[^<]+</td><td class=\"wrap\">mlx</td><td>(\w+) ", runs).group(1)
    assert first == "fsm"                                                              # recorded last
    assert runs.count('>report</a>') == 1 and 'href="s0007/report.html"' in runs


PROBE = """<script>
window.addEventListener('load', () => {
  const box = e => { const b = e.getBoundingClientRect(); return {l: b.left, t: b.top, r: b.right, b: b.bottom}; };
  const W = document.documentElement.clientWidth, cut = [], tiny = [];
  for (const t of document.querySelectorAll('svg text')) {
    const a = box(t), s = box(t.ownerSVGElement);
    if (a.l < s.l - 0.5 || a.r > s.r + 0.5 || a.t < s.t - 0.5 || a.b > s.b + 0.5 || a.l < 0 || a.r > W)
      cut.push(t.textContent);
    if (t.textContent.includes('…')) cut.push(t.textContent);
  }
  for (const e of document.querySelectorAll('td, th, h1, h2, h3, p, dd, dt'))
    if (e.scrollWidth > e.clientWidth + 1 || box(e).r > W + 0.5) cut.push(e.textContent.slice(0, 80));
  for (const a of document.querySelectorAll('a.run, g.run circle, rect.job'))
    if (box(a).r - box(a).l < 3) tiny.push(a.outerHTML.slice(0, 80));
  document.body.setAttribute('data-probe', JSON.stringify({W, scrollW: document.documentElement.scrollWidth,
    H: document.documentElement.scrollHeight,
    cut, tiny, runs: document.querySelectorAll('a.run').length}));
});
</script>"""


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None and os.environ.get("CI") != "true", reason="chromium is not installed")
@pytest.mark.parametrize("width", [1280, 800])
def test_chromium_shows_every_label_whole_at_common_widths(cfg, add_runs, tmp_path, width):
    assert CHROMIUM, "chromium must be installed under CI (.ci/run installs it)"
    light_campaign(add_runs, host="studio-mlx-workstation.lan")
    light_campaign(add_runs, variant="gguf", host="gguf-box")
    light_campaign(add_runs, suite_hash="h2", flags=LONG, campaign_id="bench-mlx-light-20261203-100051-262b")
    with_reports(cfg, *(f"s{i:04d}" for i in range(27)))
    bench_report(cfg)
    page = cfg.runs_dir / "BENCHMARK.html"
    probe = cfg.runs_dir / "probe.html"
    probe.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--hide-scrollbars", f"--window-size={width},3600"]
    dom = subprocess.run([*base, "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120).stdout
    raw = re.search(r'data-probe="([^"]*)"', dom)
    assert raw, dom[-2000:]
    got = json.loads(raw.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
                     .replace("&gt;", ">"))
    shots = Path(os.environ.get("SWARMGYM_TEST_OUTPUT") or tmp_path) / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / f"BENCHMARK-{width}.png"   # the whole page, as tall as it is
    subprocess.run([*base[:-1], f"--window-size={width},{got['H']}", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120)
    print(f"screenshot: {shot}")
    assert shot.is_file() and shot.stat().st_size > 10_000, "no screenshot"
    assert got["scrollW"] <= got["W"], f"the page scrolls sideways at {width} px"
    assert got["cut"] == [], f"cut at {width} px: {got['cut']} (see {shot})"
    assert got["tiny"] == [] and got["runs"] == 27
