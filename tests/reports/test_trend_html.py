"""BENCHMARK.html "over time" (issue #22): per arm a line of pass rates with interval bands, build labels and a
marker on every regression and improvement — checked as a person sees it, in headless Chromium."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from swarmgym.reports import regenerate
from tests.support.trend import record_night, rows

SPECS = ("crud", "compute", "txn")
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


def nights(cfg, ledger):
    """12 nights at 80 % on build 1.4, then build 1.5 at 30 %: flagged as a regression."""
    out = []
    for n in range(15):
        passes = 8 if n < 12 else 3
        version = "swarm 1.4.2" if n < 12 else "swarm 1.5.0"
        out.append(record_night(cfg, ledger, f"sched-nightly-{n:02d}", {s: rows(passes, 10) for s in SPECS},
                                night=n, binary_version=version))
    return out


def test_the_page_has_an_over_time_chart_per_arm_with_build_rules_and_change_markers(cfg):
    from swarmgym.ledger import Ledger

    ledger = Ledger(cfg.ledger_dir)
    recs = nights(cfg, ledger)
    flagged = [r.campaign_id for r in recs if r.change.verdict == "regressed"]
    assert flagged == ["sched-nightly-12"]
    regenerate(cfg)
    page = (cfg.runs_dir / "BENCHMARK.html").read_text()
    over = page[page.index("<h2>Over time</h2>"):]
    assert over.count('class="point"') == 15 and over.count('class="change-marker"') == 1
    assert 'data-verdict="regressed" data-campaign="sched-nightly-12"' in over
    assert over.count('class="build-change"') == 2                 # the first point and the new build
    assert "build swarm 1.5.0" in over and "build swarm 1.4.2" in over
    assert "sched-nightly-12 · " in over and "24/30 = 80% (Wilson 95% 63–90%)" in over
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page) and "<script" not in page


PROBE = """<script>
const svg = document.querySelector('svg.trend');
const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; };
const pts = [...svg.querySelectorAll('g.point')].map(g => ({id: g.dataset.campaign, rate: +g.dataset.rate,
  box: box(g.querySelector('circle'))}));
const marks = [...svg.querySelectorAll('g.change-marker')].map(g => ({id: g.dataset.campaign, verdict: g.dataset.verdict,
  box: box(g.querySelector('polygon'))}));
const bandEl = svg.querySelector('.band');
const band = box(bandEl);
const inBand = [...svg.querySelectorAll('g.point circle')].map(c =>
  bandEl.isPointInFill(new DOMPoint(c.cx.baseVal.value, c.cy.baseVal.value)));
const labels = [...svg.querySelectorAll('g.build-change text')].map(t => ({text: t.textContent, box: box(t)}));
document.body.setAttribute('data-probe', JSON.stringify({svg: box(svg), pts, marks, band, inBand, labels}));
</script>"""


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None and os.environ.get("CI") != "true", reason="chromium is not installed")
def test_chromium_draws_the_points_in_time_order_inside_the_band_with_the_marker_under_the_drop(cfg, tmp_path):
    from swarmgym.ledger import Ledger

    assert CHROMIUM, "chromium must be installed under CI (.ci/run installs it)"
    nights(cfg, Ledger(cfg.ledger_dir))
    regenerate(cfg)
    probe = tmp_path / "probe.html"
    probe.write_text((cfg.runs_dir / "BENCHMARK.html").read_text().replace("</body>", PROBE + "</body>"))
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,2000",
                          "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120).stdout
    raw = re.search(r'data-probe="([^"]*)"', dom)
    assert raw, dom[-2000:]
    got = json.loads(raw.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    pts, (mark,) = got["pts"], got["marks"]
    assert got["svg"][2] > 400 and got["svg"][3] > 150                       # laid out, not collapsed
    xs = [p["box"][0] for p in pts]
    assert xs == sorted(xs) and len(set(xs)) == 15                            # one step per campaign, in order
    assert [p["id"] for p in pts] == [f"sched-nightly-{n:02d}" for n in range(15)]
    low, high = pts[12], pts[11]
    assert low["box"][1] > high["box"][1] + 50                                # 30 % is drawn well below 80 %
    assert mark["id"] == "sched-nightly-12" and mark["verdict"] == "regressed"
    assert abs((mark["box"][0] + mark["box"][2] / 2) - (low["box"][0] + low["box"][2] / 2)) < 1.5  # under its point
    assert mark["box"][1] > low["box"][1]
    assert got["inBand"] == [True] * 15                                      # every rate inside its Wilson band
    assert [lab["text"] for lab in got["labels"]] == ["build swarm 1.4.2", "build swarm 1.5.0"]
    a, b = (lab["box"] for lab in got["labels"])
    assert a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]  # no overlap
