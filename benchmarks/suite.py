"""What do a suite's checks cost per job?  Two suites side by side (default bench-v1 vs bench-v2;
``--suites bench-v2 bench-v3`` for the shared specs of v2 and v3, ``--suites bench-v3 bench-v4`` for bench-v4's
exact rows against bench-v3), on each reference app: the rows each tier's checks run (golden / exact rows of
every table check) and what grading them costs, and the ratios new / old per spec.

For every spec both suites have it grades the reference app (what a passing job costs: every check
runs) with the normal-tier and the extreme-tier checks of both suites, and times the newer suite's
differential (golden-table) checks two ways: the driver's fast path (rows in processes forked from
the driver, inputs only in the box; disagreements would be confirmed by subprocesses) against one
subprocess per step.  Wall times are medians of
``--reps`` runs, and also CPU seconds of the check processes (children's user+sys), which load on
the machine inflates less.  The two suites are measured interleaved (old, new, old, new, ...) so a
load swing on a shared machine hits both alike.

A spec only the newer suite has (bench-v3's six new apps) is graded the same way and compared with
the older suite's dearest spec of the same tier ("v2's per spec" for an app v2 never had).
``--verify`` also times ``suite verify`` of the newer suite with ``--workers`` apps at a time (the
issue's 2 cores), focused (the default: only the checks that decide each mutant) and, with
``--exhaustive``, every check on every mutant.

    python benchmarks/suite.py [--reps 3] [--suites bench-v3 bench-v4] [--spec compute ...] [--no-subproc] [--verify] [--json]
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

from swarmgym.config import load_config
from swarmgym.grading import difftable
from swarmgym.grading.grade import CHECKS, grade
from swarmgym.isolation.sandbox import Limits, run_sandboxed
from swarmgym.suitekit.suite import TABLE_KINDS, load_suite, materialize


def table_rows(checks) -> int:
    """How many rows the table checks among ``checks`` run."""
    return sum(len(json.loads(c.table_file().read_text())["rows"]) for c in checks if c.kind in TABLE_KINDS)


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
    ap.add_argument("--suites", nargs=2, default=["bench-v1", "bench-v2"], metavar=("OLD", "NEW"),
                    help="the two suites to compare (default: bench-v1 bench-v2)")
    ap.add_argument("--spec", action="append", help="spec ids (default: every spec both suites have)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument("--verify", action="store_true", help="also time `suite verify` of the newer suite")
    ap.add_argument("--exhaustive", action="store_true", help="with --verify: also time the exhaustive verify")
    ap.add_argument("--workers", type=int, default=2, help="apps verified at a time (default 2: the issue's 2 cores)")
    ap.add_argument("--no-subproc", action="store_true", help="time the newer suite's tables on the fast path only")
    ap.add_argument("--isolation", default=None, help="the check boxes' backend (default: the config's); `none` "
                    "counts every check process's CPU (a bwrap box's processes are reaped inside it, out of sight)")
    args = ap.parse_args()
    cfg = load_config(Path(tempfile.mkdtemp(prefix="swarmgym-bench-suite-")), environ={},
                      overrides={"sandbox.backend": args.isolation} if args.isolation else None)
    old, new = (load_suite(name, cfg.suites_dir) for name in args.suites)
    rows = []
    err = Console(stderr=True)
    shared = {o.id for o in old.specs}
    specs = [s.id for s in new.specs if s.id in shared and (not args.spec or s.id in args.spec)]
    only_new = [s.id for s in new.specs if s.id not in shared and (not args.spec or s.id in args.spec)]
    for spec_id in specs + only_new:
        mine = [s for s in (old, new) if spec_id in {x.id for x in s.specs}]
        with tempfile.TemporaryDirectory() as tmp:
            ws = {s.name: materialize(s, s.spec(spec_id), Path(tmp) / s.name / s.spec(spec_id).app_slug)
                  for s in mine}
            for hard in (False, True):
                times: dict[str, list[tuple[float, float]]] = {s.name: [] for s in mine}
                for _ in range(args.reps):  # interleaved: old, new, old, new, ...
                    for suite in mine:
                        checks = suite.spec(spec_id).checks_for(hard)
                        times[suite.name].append(timed(lambda c=checks, w=ws[suite.name]: grade(w, c, cfg, dimensions=CHECKS)))
                for suite in mine:
                    n = len(suite.spec(spec_id).checks_for(hard))
                    n_rows = table_rows(suite.spec(spec_id).checks_for(hard))
                    err.print(f"{suite.name} {spec_id} {'extreme' if hard else 'normal'}: {n} checks, {n_rows} rows")
                    wall, cpu = median(times[suite.name])
                    rows.append({"spec": spec_id, "suite": suite.name, "tier": "extreme" if hard else "normal",
                                 "checks": n, "rows": n_rows, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2)})
            spec = new.spec(spec_id)  # the newer suite's golden tables: the forked fast path vs one subprocess per step
            for c in (c for c in spec.checks if c.kind in TABLE_KINDS and "golden_table" in c.name):
                table = difftable.load_table(c.table_file(), str(c.module))
                for mode in ("fork",) if args.no_subproc else ("fork", "subproc"):
                    cmd = difftable.command(difftable.box_inputs(table, range(len(table["rows"])), mode))
                    res = [timed(lambda c=cmd, w=ws[new.name]: run_sandboxed(c, w, timeout=600, limits=Limits()))
                           for _ in range(args.reps)]
                    wall, cpu = median(res)
                    rows.append({"spec": spec_id, "suite": new.name, "tier": f"{c.name} ({mode})",
                                 "checks": len(table["rows"]), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2)})
    if args.verify:
        rows += verify_rows(new, cfg, args)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    t = Table(title="cost of the checks per job (reference app; medians)", title_justify="left")
    for col in ("spec", "suite", "what", "checks / rows", "table rows", "wall s", "cpu s"):
        t.add_column(col, justify="left" if col in ("spec", "suite", "what") else "right")
    for r in rows:
        t.add_row(r["spec"], r["suite"], r["tier"], str(r["checks"]), str(r.get("rows", "")), f"{r['wall_s']:.2f}",
                  f"{r['cpu_s']:.2f}")
    Console().print(t)
    by = {(r["spec"], r["suite"], r["tier"]): r for r in rows}
    for spec_id in specs + only_new:
        for tier in ("normal", "extreme"):
            b = by[(spec_id, new.name, tier)]
            if spec_id in shared:
                a, vs = by[(spec_id, old.name, tier)], f"{old.name}'s {spec_id}"
            else:  # a new app: against the older suite's dearest spec of the tier
                a = max((by[(s, old.name, tier)] for s in specs), key=lambda r: r["wall_s"], default=None)
                vs = f"{old.name}'s dearest spec ({a['spec']})" if a else ""
            if a:
                print(f"{spec_id} {tier}: {b['wall_s']:.2f}s, {b['wall_s'] / a['wall_s']:.2f}x {vs} wall, "
                      f"cpu {b['cpu_s'] / max(a['cpu_s'], 1e-9):.2f}x; rows {b['rows']} vs {a['rows']} "
                      f"({b['rows'] / max(a['rows'], 1):.1f}x)")
        for name in ("golden_table", "hard_golden_table"):
            i, s = by.get((spec_id, new.name, f"{name} (fork)")), by.get((spec_id, new.name, f"{name} (subproc)"))
            if i and s:
                print(f"{spec_id} {name}: forked fast path {i['wall_s']:.2f}s vs a subprocess per step {s['wall_s']:.2f}s "
                      f"({s['wall_s'] / i['wall_s']:.1f}x faster; cpu {s['cpu_s'] / max(i['cpu_s'], 1e-9):.1f}x)")
    return 0


def verify_rows(suite, cfg, args) -> list[dict]:
    """`suite verify` of ``suite`` with ``args.workers`` apps at a time: focused, and exhaustive if asked."""
    from swarmgym.grading.suite_verify import verify_suite

    out = []
    for exhaustive in ([False, True] if args.exhaustive else [False]):
        wall, cpu = timed(lambda e=exhaustive: out.append(verify_suite(suite, cfg, workers=args.workers, exhaustive=e)))
        res = out.pop()
        checks = sum(len(r.results) for r in res.rows)
        print(f"suite verify {suite.name} ({'exhaustive' if exhaustive else 'focused'}, {args.workers} workers): "
              f"{wall:.0f} s wall, {res.killed}/{res.mutants} mutants killed, {checks} checks run, "
              f"references ok: {all(r.ok for r in res.rows if r.kind == 'reference')}", file=sys.stderr)
        out.append({"spec": "ALL", "suite": suite.name, "tier": f"verify ({'exhaustive' if exhaustive else 'focused'})",
                    "checks": checks, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1)})
    return out


if __name__ == "__main__":
    sys.exit(main())
