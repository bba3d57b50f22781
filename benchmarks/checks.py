"""What does the check sandbox cost?  Plain ``bash -c`` vs :func:`swarmgym.sandbox.run_sandboxed`.

Runs the same commands — ``true`` and the rdcalc golden checks of bench-v1 against its
reference app — N times each way in the same workspace and prints one side-by-side table of
mean wall times and the overhead ratio (sandboxed / plain).

    python benchmarks/checks.py [--reps 10] [--spec compute]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from swarmgym.config import load_config  # noqa: E402
from swarmgym.sandbox import Limits, run_sandboxed, scrubbed_env  # noqa: E402
from swarmgym.suite import load_suite, materialize  # noqa: E402


def plain(command: str, cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    code = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return time.perf_counter() - start, code


def sandboxed(command: str, cwd: Path, limits: Limits, timeout: float) -> tuple[float, int]:
    start = time.perf_counter()
    res = run_sandboxed(command, cwd, timeout=timeout, limits=limits)
    return time.perf_counter() - start, res.exit_code if res.exit_code is not None else -1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10, help="runs per command and mode (default 10)")
    ap.add_argument("--spec", default="compute", help="bench-v1 spec whose golden checks to time (default compute)")
    args = ap.parse_args()

    cfg = load_config(tempfile.mkdtemp(prefix="swarmgym-bench-home-"), environ={})
    suite = load_suite(cfg.suite, cfg.suites_dir)
    spec = suite.spec(args.spec)
    commands = [("true", "true")] + [(c.name, c.run) for c in spec.checks_for(hard=True)
                                     if c.kind == "command_succeeds" and not c.name.startswith("tests_")]
    limits = Limits.from_config(cfg.checks)
    # Same PATH for both modes, so the difference is the sandbox alone (not which python3 resolves).
    env = scrubbed_env()
    console = Console()

    table = Table(title=f"check sandbox overhead: {args.reps} runs each, spec {spec.id} ({spec.app_slug} reference)")
    for col, just in [("check", "left"), ("plain bash -c mean ms", "right"), ("stdev", "right"),
                      ("run_sandboxed mean ms", "right"), ("stdev", "right"), ("overhead ×", "right"),
                      ("Δ ms", "right")]:
        table.add_column(col, justify=just)
    totals = [0.0, 0.0]
    with tempfile.TemporaryDirectory(prefix="swarmgym-bench-") as tmp:
        ws = materialize(suite, spec, Path(tmp) / spec.app_slug)
        for name, command in commands:
            plain(command, ws, env), sandboxed(command, ws, limits, cfg.checks.timeout)  # warm up caches
            a, b = [], []
            for _ in range(args.reps):  # interleave so drift hits both modes alike
                t, code_a = plain(command, ws, env)
                a.append(t)
                t, code_b = sandboxed(command, ws, limits, cfg.checks.timeout)
                b.append(t)
                if code_a != 0 or code_b != 0:
                    console.print(f"[red]{name}: exit {code_a} plain, {code_b} sandboxed[/]")
            ma, mb = statistics.mean(a) * 1000, statistics.mean(b) * 1000
            totals[0] += ma
            totals[1] += mb
            table.add_row(name, f"{ma:.1f}", f"{statistics.stdev(a) * 1000:.1f}", f"{mb:.1f}",
                          f"{statistics.stdev(b) * 1000:.1f}", f"{mb / ma:.2f}", f"{mb - ma:+.1f}")
    table.add_section()
    table.add_row("ALL (sum of means)", f"{totals[0]:.1f}", "", f"{totals[1]:.1f}", "",
                  f"{totals[1] / totals[0]:.2f}", f"{totals[1] - totals[0]:+.1f}")
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
