"""Reports rebuilt from the ledger, all written atomically.

- ``runs/BENCHMARK.md``          per variant x suite hash results + same-hash head-to-heads
- ``runs/BENCHMARK.html``        the same in pictures (:mod:`.benchmark_html`, inline SVG), and over time
- ``runs/benchmark-runs.csv``     one row per benchmark run (the seed's columns)
- ``runs/benchmark-summary.csv``  per variant x spec plus an ``ALL`` roll-up
- ``runs/<session_id>/``          session.json, turn-<n>.json, report.html (:mod:`.session`)
"""
from __future__ import annotations

from pathlib import Path

from swarmgym.core.atomic import atomic_write_text
from swarmgym.ledger import Ledger
from swarmgym.reports import bench, benchmark_html, csvs, markdown

BENCHMARK_MD = "BENCHMARK.md"
BENCHMARK_HTML = "BENCHMARK.html"
RUNS_CSV = "benchmark-runs.csv"
SUMMARY_CSV = "benchmark-summary.csv"


def build(cfg, ledger: Ledger | None = None) -> bench.BenchData:
    """Aggregate the ledger's benchmark runs (used by regenerate and by the CLI summary)."""
    return bench.aggregate(bench.load_rows(ledger or Ledger(cfg.ledger_dir)))


def write_csvs(cfg, data: bench.BenchData | None = None) -> list[Path]:
    data = data or build(cfg)
    return [csvs.write_runs(cfg.runs_dir / RUNS_CSV, data.rows),
            csvs.write_summary(cfg.runs_dir / SUMMARY_CSV, data.kept)]


def write_html(cfg, data: bench.BenchData | None = None, *, arms: list[str] | None = None,
               name: str = BENCHMARK_HTML) -> Path:
    """Write the benchmark page (all arms, or only ``arms``) to ``runs/<name>``."""
    ledger = Ledger(cfg.ledger_dir)
    data = data or build(cfg, ledger)
    records = ledger.records(kind="session", mode="benchmark")
    title = "swarmgym benchmark" + (f": {' vs '.join(arms)}" if arms else "")
    return atomic_write_text(cfg.runs_dir / name, benchmark_html.render(
        data, records, arms=arms, title=title, campaigns=ledger.records(kind="campaign"),
        has_report=lambda sid: (cfg.runs_dir / sid / "report.html").is_file()))


def regenerate(cfg, data: bench.BenchData | None = None) -> list[Path]:
    """Rewrite runs/BENCHMARK.md, runs/BENCHMARK.html and both CSVs from the ledger; returns their paths
    (BENCHMARK.md first)."""
    data = data or build(cfg)
    md = atomic_write_text(cfg.runs_dir / BENCHMARK_MD, markdown.render(data))
    return [md, write_html(cfg, data), *write_csvs(cfg, data)]
