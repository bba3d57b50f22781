"""runs/BENCHMARK.html: the head-to-head in pictures, self-contained, and `report --compare` for two arms."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from swarmgym.reports import regenerate

T, F = True, False


def _page(cfg) -> str:
    paths = regenerate(cfg)
    html = cfg.runs_dir / "BENCHMARK.html"
    assert html in paths
    return html.read_text()


def test_benchmark_html_is_written_beside_benchmark_md_and_needs_no_external_asset(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, T, F], "compute": [T, T, T]})
    page = _page(cfg)
    assert (cfg.runs_dir / "BENCHMARK.md").is_file()
    assert page.count("<svg") >= 2
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "an external asset or CDN"
    assert "<script" not in page


def test_each_arm_has_its_pass_rate_with_the_wilson_interval(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, T, T, T, F], "compute": [T, T, T, T, T], "txn": [T, F, T, T, T]})
    add_runs("gguf", "h1", {"crud": [F, T, F, F, T], "compute": [T, F, T, F, T], "txn": [F, F, T, F, F]})
    page = _page(cfg)
    assert "mlx: 13/15 pass = 87% (Wilson 95% 62–96%)" in page
    assert "gguf: 6/15 pass = 40% (Wilson 95% 20–64%)" in page


def test_the_forest_plot_shows_each_spec_difference_with_its_interval_and_the_mean(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, T, T, T, F], "compute": [T, T, T, T, T], "txn": [T, F, T, T, T]})
    add_runs("gguf", "h1", {"crud": [F, T, F, F, T], "compute": [T, F, T, F, T], "txn": [F, F, T, F, F]})
    page = _page(cfg)
    forest = page[page.index("Head-to-head"):page.index("Dispatch over")]
    for spec in ("crud", "compute", "txn", "mean over specs"):
        assert f'data-spec="{spec}"' in forest
    # gguf sorts first: A = gguf, B = mlx; every difference is B − A, green where B is better
    assert "crud: B 4/5 vs A 2/5, B − A +40 pp (95% " in forest
    assert "mean B − A +46.7 pp" in forest
    assert re.search(r'data-spec="compute" data-tone="(better|neutral)"', forest)


def test_dispatch_shares_are_per_arm_and_the_timeline_has_a_lane_per_host(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, T]}, per_device={"studio": 3, "mini": 1}, host="studio-host")
    add_runs("gguf", "h1", {"crud": [F, T]}, per_device={"gguf-box": 4}, host="gguf-host")
    page = _page(cfg)
    assert "mlx · studio: 6 of 8 tasks (75%)" in page and "gguf · gguf-box: 8 of 8 tasks (100%)" in page
    assert 'data-host="studio-host"' in page and 'data-host="gguf-host"' in page
    assert page.count('class="job"') == 4


def test_concurrent_jobs_on_one_host_do_not_hide_each_other(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T], "compute": [T], "txn": [T]}, host="h", wall_secs=100.0)  # ts 1 s apart
    page = _page(cfg)
    ys = {m for m in re.findall(r'class="job" x="[^"]+" y="([^"]+)"', page)}
    assert len(ys) == 3  # three overlapping jobs: three rows


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "swarmgym"
    return subprocess.run([str(exe), "--home", str(home), *args], capture_output=True, text=True, timeout=120)


def test_report_compare_writes_the_page_for_exactly_two_arms(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, T]})
    add_runs("gguf", "h1", {"crud": [F, T]})
    add_runs("cuda", "h1", {"crud": [F, F]})
    res = _cli(cfg.home, "report", "--compare", "mlx", "gguf")
    assert res.returncode == 0, res.stderr
    page = Path(res.stdout.strip().splitlines()[-1]).read_text()
    assert 'data-arm="mlx"' in page and 'data-arm="gguf"' in page and 'data-arm="cuda"' not in page
    bad = _cli(cfg.home, "report", "--compare", "mlx", "nope")
    assert bad.returncode == 2 and "no arm 'nope' in the ledger; known: " in bad.stderr
    assert "Traceback" not in bad.stderr


def test_dispatch_shares_follow_the_arm_key_that_includes_the_adapter(cfg, add_runs):
    from swarmgym.models import Provenance

    add_runs("mlx", "h1", {"crud": [T, T]}, per_device={"studio": 1, "mini": 1}, provenance=Provenance(adapter="sim"))
    page = _page(cfg)
    assert "mlx (sim) · studio: 2 of 4 tasks (50%)" in page and "No per-device counts recorded" not in page
