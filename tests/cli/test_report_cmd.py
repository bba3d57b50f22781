"""``swarmgym bench-report`` | ``bench-csv`` | ``report``."""
from __future__ import annotations

from click.testing import CliRunner

from swarmgym.cli import cli
from swarmgym.ledger import Ledger
from swarmgym.models import LedgerRecord, Provenance


def fill(home, variant: str, suite_hash: str, outcomes: list[bool], **kw) -> None:
    lg = Ledger(home / "ledger")
    for i, ok in enumerate(outcomes):
        spec = ("crud", "compute", "txn")[i % 3]
        fields = dict(session_id=f"{variant}-{suite_hash}-{i}", job_id=f"{variant}:{suite_hash}:{i}",
                      campaign_id=f"c-{variant}", mode="benchmark", spec=spec, app_slug=spec, variant=variant,
                      tier="medium", rep=i // 3, suite="bench-v1", suite_hash=suite_hash,
                      overall="pass" if ok else "fail", functional=ok, wall_secs=12.5, ts=1.7e9 + i,
                      provenance=Provenance(seed=i // 3))
        fields.update(kw)
        lg.record(LedgerRecord(**fields))


def run(home, *args):
    return CliRunner().invoke(cli, ["--home", str(home), *args])


def test_bench_report_writes_benchmark_md_and_prints_the_head_to_head(tmp_path):
    fill(tmp_path, "mlx", "h1", [True] * 6)
    fill(tmp_path, "gguf", "h1", [False, True, False, False, True, False])
    res = run(tmp_path, "bench-report")
    assert res.exit_code == 0, res.output
    assert str(tmp_path / "runs" / "BENCHMARK.md") in res.output
    # A = gguf, B = mlx (sorted): B − A over 6 pairs, 4 only mlx passed -> +66.7 pp; McNemar p = 2/16
    assert "gguf" in res.output and "+66.7 pp" in res.output and "0.1250 (6)" in res.output
    assert "undecided" in res.output and "next: swarmgym compare gguf mlx --max-runs" in res.output
    assert (tmp_path / "runs" / "benchmark-runs.csv").is_file()


def test_bench_report_is_loud_about_different_suite_hashes(tmp_path):
    fill(tmp_path, "mlx", "h1", [True] * 3)
    fill(tmp_path, "gguf", "h2", [False] * 3)
    res = run(tmp_path, "bench-report")
    assert res.exit_code == 0
    assert "NOT COMPARED: gguf (h2) vs mlx (h1)" in res.output
    assert "never pairs runs across suite hashes" in " ".join(res.output.split())


def test_bench_csv_prints_both_paths(tmp_path):
    fill(tmp_path, "mlx", "h1", [True, False])
    res = run(tmp_path, "bench-csv")
    assert res.exit_code == 0
    assert res.output.split() == [str(tmp_path / "runs" / "benchmark-runs.csv"),
                                  str(tmp_path / "runs" / "benchmark-summary.csv")]
    assert not (tmp_path / "runs" / "BENCHMARK.md").exists()


def test_report_lists_the_last_n_sessions(tmp_path):
    fill(tmp_path, "mlx", "h1", [True] * 4)
    fill(tmp_path, "mlx", "h1", [False], mode="exploratory", archetype="heavy-spec", session_id="explore-1",
         job_id="e:1", idle_nodes=["gpu-b"], ts=1.8e9)
    res = run(tmp_path, "report", "-n", "2")
    assert res.exit_code == 0
    assert "mlx-h1-3" in res.output and "explore-1" in res.output and "mlx-h1-2" not in res.output
    line = next(ln for ln in res.output.splitlines() if "explore-1" in ln)
    assert "exploratory" in line and "heavy-spec" in line and "gpu-b" in line and "fail" in line


def test_report_on_an_empty_ledger_and_a_bad_n(tmp_path):
    res = run(tmp_path, "report")
    assert res.exit_code == 0 and "no sessions yet" in res.output
    res = run(tmp_path, "report", "-n", "0")
    assert res.exit_code == 2 and "-n" in res.output


def test_report_json_gives_the_last_records_as_data(tmp_path):
    import json

    fill(tmp_path, "mlx", "h1", [True, False, True])
    res = run(tmp_path, "report", "-n", "2", "--json")
    assert res.exit_code == 0, res.output
    recs = json.loads(res.output)
    assert [r["session_id"] for r in recs] == ["mlx-h1-1", "mlx-h1-2"] and recs[0]["overall"] == "fail"
