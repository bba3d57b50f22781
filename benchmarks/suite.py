"""What do a suite's checks cost per job?  bench-v1 vs bench-v2, side by side, on each reference app.

For every spec it grades the reference app (what a passing job costs: every check runs) with the
normal-tier and the extreme-tier checks of both suites, and times the differential (golden-table)
checks two ways: the driver's one-process run (rows in-process, disagreements confirmed by
subprocesses) against one subprocess per row.  Wall times are medians of ``--reps`` runs, and
also CPU seconds of the check processes (children's user+sys), which load on the machine inflates less.

    python benchmarks/suite.py [--reps 3] [--spec compute ...] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console
from rich.table import Table

from swarmgym import difftable
from swarmgym.checks import run_checks
from swarmgym.config import load_config
from swarmgym.sandbox import Limits, run_sandboxed
from swarmgym.suite import load_suite, materialize


def timed(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of finished children) of one call."""
    c0, w0 = os.times(), time.perf_counter()
    fn()
    c1 = os.times()
    return time.perf_counter() - w0, (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)


def median(xs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(x[0] for x in xs), statistics.median(x[1] for x in xs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3, help="runs per measurement (default 3)")
    ap.add_argument("--spec", action="append", help="spec ids (default: all three)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    cfg = load_config(Path(tempfile.mkdtemp(prefix="swarmgym-bench-suite-")), environ={})
    v1, v2 = load_suite("bench-v1", cfg.suites_dir), load_suite("bench-v2", cfg.suites_dir)
    rows = []
    err = Console(stderr=True)
    for spec_id in args.spec or [s.id for s in v2.specs]:
        for suite in (v1, v2):
            spec = suite.spec(spec_id)
            with tempfile.TemporaryDirectory() as tmp:
                ws = materialize(suite, spec, Path(tmp) / spec.app_slug)
                for hard in (False, True):
                    checks = spec.checks_for(hard)
                    err.print(f"{suite.name} {spec_id} {'extreme' if hard else 'normal'}: {len(checks)} checks")
                    wall, cpu = median([timed(lambda c=checks, w=ws: run_checks(c, w, cfg)) for _ in range(args.reps)])
                    rows.append({"spec": spec_id, "suite": suite.name, "tier": "extreme" if hard else "normal",
                                 "checks": len(checks), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2)})
                if suite is v2:  # the golden tables: one process vs one subprocess per row
                    for c in (c for c in spec.checks if c.kind == "differential"):
                        table = difftable.load_table(c.table_file(), str(c.module))
                        for mode in ("inproc", "subproc"):
                            cmd = difftable.command(table, mode)
                            res = []
                            for _ in range(args.reps):
                                res.append(timed(lambda c=cmd, w=ws: run_sandboxed(c, w, timeout=600, limits=Limits())))
                            wall, cpu = median(res)
                            rows.append({"spec": spec_id, "suite": suite.name, "tier": f"{c.name} ({mode})",
                                         "checks": len(table["rows"]), "wall_s": round(wall, 2),
                                         "cpu_s": round(cpu, 2)})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    t = Table(title="cost of the checks per job (reference app; medians)", title_justify="left")
    for col in ("spec", "suite", "what", "checks / rows", "wall s", "cpu s"):
        t.add_column(col, justify="right" if col in ("checks / rows", "wall s", "cpu s") else "left")
    for r in rows:
        t.add_row(r["spec"], r["suite"], r["tier"], str(r["checks"]), f"{r['wall_s']:.2f}", f"{r['cpu_s']:.2f}")
    Console().print(t)
    by = {(r["spec"], r["suite"], r["tier"]): r for r in rows}
    for spec_id in args.spec or [s.id for s in v2.specs]:
        for tier in ("normal", "extreme"):
            a, b = by[(spec_id, "bench-v1", tier)], by[(spec_id, "bench-v2", tier)]
            print(f"{spec_id} {tier}: bench-v2 / bench-v1 = {b['wall_s'] / a['wall_s']:.2f}x wall, "
                  f"{b['cpu_s'] / max(a['cpu_s'], 1e-9):.2f}x cpu")
        for name in ("golden_table", "hard_golden_table"):
            i, s = by.get((spec_id, "bench-v2", f"{name} (inproc)")), by.get((spec_id, "bench-v2", f"{name} (subproc)"))
            if i and s:
                print(f"{spec_id} {name}: one process {i['wall_s']:.2f}s vs a subprocess per row {s['wall_s']:.2f}s "
                      f"({s['wall_s'] / i['wall_s']:.1f}x faster; cpu {s['cpu_s'] / max(i['cpu_s'], 1e-9):.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
