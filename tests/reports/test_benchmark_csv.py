"""runs/benchmark-runs.csv and runs/benchmark-summary.csv."""
from __future__ import annotations

import csv

from swarmgym.models import Provenance
from swarmgym.reports import regenerate, write_csvs

T, F = True, False
SEED_HEADER = ["variant", "tier", "spec", "app_slug", "session_id", "wall_secs", "functional", "overall", "checks",
               "swarm", "cluster", "diagnostics", "tasks_done", "tasks_failed", "exit_code"]
RUNS_HEADER = SEED_HEADER + ["adapter", "flags", "seed", "host"]


def read(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def test_runs_csv_keeps_the_seed_columns_first_then_adapter_flags_seed_host(cfg, add_runs):
    prov = Provenance(adapter="sim", seed=1000, host="studio-2", flags={"GOOSE_SWARM_REVIEW": "1"})
    add_runs("mlx", "h1", {"crud": [T, F], "txn": [T]}, provenance=prov, host="studio-2",
             flags={"GOOSE_SWARM_REVIEW": "1", "GOOSE_SWARM_GOALS": "0"})
    runs_csv, _ = write_csvs(cfg)
    assert runs_csv == cfg.runs_dir / "benchmark-runs.csv"
    rows = read(runs_csv)
    assert rows[0] == RUNS_HEADER
    assert len(rows) == 4
    first = dict(zip(rows[0], rows[1]))
    assert first == {"variant": "mlx", "tier": "medium", "spec": "crud", "app_slug": "invtrack", "session_id": "s0000",
                     "wall_secs": "10.000", "functional": "1", "overall": "pass", "checks": "pass", "swarm": "pass",
                     "cluster": "partial", "diagnostics": "pass", "tasks_done": "6", "tasks_failed": "0",
                     "exit_code": "0", "adapter": "sim", "flags": "GOOSE_SWARM_GOALS=0;GOOSE_SWARM_REVIEW=1",
                     "seed": "1000", "host": "studio-2"}
    assert [r[6] for r in rows[1:]] == ["1", "1", "0"]


def test_summary_has_a_row_per_variant_and_spec_plus_an_all_roll_up(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, T, T, T, F], "compute": [T, T, F, F, F]})
    add_runs("gguf", "h1", {"crud": [F, F]})
    summary = next(p for p in regenerate(cfg) if p.name == "benchmark-summary.csv")
    rows = read(summary)
    assert rows[0] == ["variant", "spec", "runs", "passes", "pass_pct", "wilson_low_pct", "wilson_high_pct",
                       "wall_median", "wall_mean", "wall_p90", "wall_stdev", "wall_min", "wall_max", "infra"]
    table = {(r[0], r[1]): dict(zip(rows[0], r)) for r in rows[1:]}
    assert list(table) == [("gguf", "crud"), ("gguf", "ALL"), ("mlx", "compute"), ("mlx", "crud"), ("mlx", "ALL")]
    crud = table[("mlx", "crud")]
    assert (crud["runs"], crud["passes"], crud["pass_pct"]) == ("5", "4", "80.0")
    assert (crud["wilson_low_pct"], crud["wilson_high_pct"]) == ("37.6", "96.4")
    assert (crud["wall_median"], crud["wall_mean"], crud["wall_p90"], crud["wall_min"], crud["wall_max"]) == \
        ("30.000", "30.000", "46.000", "10.000", "50.000")
    every = table[("mlx", "ALL")]
    assert (every["runs"], every["passes"], every["pass_pct"]) == ("10", "6", "60.0")
    assert table[("gguf", "ALL")]["pass_pct"] == "0.0"


def test_reports_are_replaced_atomically_leaving_no_temp_files(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T]})
    regenerate(cfg)
    add_runs("gguf", "h1", {"crud": [F]})
    regenerate(cfg)
    assert sorted(p.name for p in cfg.runs_dir.iterdir()) == ["BENCHMARK.html", "BENCHMARK.md", "benchmark-runs.csv",
                                                               "benchmark-summary.csv"]
    assert len(read(cfg.runs_dir / "benchmark-runs.csv")) == 3


def test_sim_and_command_runs_of_one_variant_are_two_arms_in_the_summary(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, T]}, provenance=Provenance(adapter="sim"))
    add_runs("mlx", "h1", {"crud": [F, F]}, provenance=Provenance(adapter="command"))
    rows = read(next(p for p in regenerate(cfg) if p.name == "benchmark-summary.csv"))
    table = {(r[0], r[1]): dict(zip(rows[0], r)) for r in rows[1:]}
    assert table[("mlx (sim)", "ALL")]["pass_pct"] == "100.0"
    assert table[("mlx (command)", "ALL")]["pass_pct"] == "0.0"
    assert not any(k[0] == "mlx" for k in table)


def test_infra_runs_are_counted_apart_and_left_out_of_the_pass_rate(cfg, add_runs):
    add_runs("mlx", "h1", {"crud": [T, F]}, provenance=Provenance(adapter="goose"))
    add_runs("mlx", "h1", {"crud": [F, F, F]}, provenance=Provenance(adapter="goose"), overall="infra",
             wall_secs=0.0, exit_code=None)
    runs, summary = write_csvs(cfg)
    every = {r[1]: dict(zip(read(summary)[0], r)) for r in read(summary)[1:]}["ALL"]
    assert (every["runs"], every["passes"], every["pass_pct"], every["infra"]) == ("2", "1", "50.0", "3")
    assert [r[7] for r in read(runs)[1:]].count("infra") == 3  # still one row per run
