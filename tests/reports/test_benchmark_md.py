"""runs/BENCHMARK.md: per variant x suite hash, head-to-head only on a shared suite hash."""
from __future__ import annotations

import re

from swarmgym.reports import regenerate

T, F = True, False


def test_two_variants_on_the_same_hash_get_a_head_to_head(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, T, T, T, F], "compute": [T, T, T, T, T], "txn": [T, F, T, T, T]})
    add_runs("gguf", "h1", {"crud": [F, T, F, F, T], "compute": [T, F, T, F, T], "txn": [F, F, T, F, F]})
    paths = regenerate(cfg)
    assert paths[0] == cfg.runs_dir / "BENCHMARK.md"
    md = paths[0].read_text()
    assert "### gguf vs mlx (suite hash `h1`)" in md
    assert "NEVER PAIRED" not in md and "NOT COMPARED" not in md
    # A = gguf, B = mlx (sorted); per-spec differences mlx - gguf: crud 80-40, compute 100-60, txn 80-20
    assert re.search(r"\| crud \| 40\.0 % \(5\) \| 80\.0 % \(5\) \| \+40\.0 pp \|", md)
    assert re.search(r"\| compute \| 60\.0 % \(5\) \| 100\.0 % \(5\) \| \+40\.0 pp \|", md)
    assert "+46.7 pp ± 6.7 pp (SE over 3 specs)" in md
    assert "mlx better on 3, gguf better on 0, tied 0 → p = 0.2500" in md
    # pairs on (spec, seed): gguf pass & mlx fail only at crud seed 4; the reverse 3 + 2 + 3 times
    assert "1 only gguf passed, 8 only mlx passed → p = 0.0391" in md  # 2*(1+9)/2**9
    assert "**Answer (mlx − gguf): mlx better** — +46.7 pp [" in md
    assert "pass@1: gguf 40.0 % vs mlx 86.7 %" in md and "pass@5:" in md
    # per variant tables with Wilson intervals
    assert "Pass rate: 13/15 = 86.7 % (Wilson 95 % 62.1–96.3 %)" in md
    assert "| crud | invtrack | 5 | 4 | 80.0 % | 37.6–96.4 % |" in md


def test_runs_on_different_suite_hashes_are_never_paired_and_the_report_says_why(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, T], "compute": [T, T], "txn": [T, F]})
    add_runs("gguf", "h2", {"crud": [F, F], "compute": [T, F], "txn": [F, F]})
    md = regenerate(cfg)[0].read_text()
    assert "WARNING: RUNS ON DIFFERENT SUITE HASHES ARE NEVER PAIRED" in md
    assert "### ⚠️ NOT COMPARED: gguf vs mlx" in md
    assert "different rulers" in md
    assert "No two variants share a suite hash yet" in md
    assert "McNemar" not in md and "Sign test" not in md
    assert "### mlx · suite bench-v1 · hash `h1`" in md and "### gguf · suite bench-v1 · hash `h2`" in md


def test_only_benchmark_session_records_count(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, T]})
    add_runs("mlx", "h1", {"crud": [F, F, F]}, mode="exploratory")
    from swarmgym.ledger import Ledger, campaign_record
    Ledger(cfg.ledger_dir).record(campaign_record("c", variant="mlx", tier="medium", overall="fail", suite_hash="h1"))
    md = regenerate(cfg)[0].read_text()
    assert "2 benchmark runs" in md and "Pass rate: 2/2" in md


def test_an_empty_ledger_gives_a_report_that_says_so(cfg):
    md = regenerate(cfg)[0].read_text()
    assert "No benchmark runs in the ledger yet" in md


def test_a_variant_re_run_with_a_flag_shows_the_flags_in_effect(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, F]})
    add_runs("mlx", "h1", {"crud": [T, T]}, flags={"GOOSE_SWARM_GOALS": "1"})
    md = regenerate(cfg)[0].read_text()
    assert "Flags in effect: " in md and "GOOSE_SWARM_GOALS=1 ×2" in md and "(none) ×2" in md


def test_runs_without_a_suite_hash_are_never_paired(cfg, add_runs):
    add_runs("mlx", None, {"crud": [T, T]})
    add_runs("gguf", None, {"crud": [F, F]})
    md = regenerate(cfg)[0].read_text()
    assert "no suite hash recorded (never paired): gguf, mlx" in md
    assert "### ⚠️ NOT COMPARED: gguf vs mlx" in md and "McNemar" not in md
