"""What does one fast-path box for all of a grading's table checks save?  Each spec's table checks (the
golden table, ``help``, ``acceptance``, …) graded on its reference app, side by side: every table check in
a grading of its own (a box and a driver each, as before) vs all of them in one grading (their fast paths
in one box, :func:`swarmgym.grading.difftable.together`).

For every spec: the table checks and rows, the boxes each way, and the CPU seconds of every check process
(children's user + system; ``--isolation none`` by default, so nothing is reaped out of sight), medians of
``--reps`` runs, the two ways interleaved.  Both ways must give the same verdicts (the reference passes).

    python benchmarks/shared_box.py [--suite bench-v6] [--spec fsm ...] [--reps 3] [--isolation none] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console
from rich.table import Table

from swarmgym.config import load_config
from swarmgym.grading.grade import CHECKS, grade
from swarmgym.suitekit.suite import TABLE_KINDS, load_suite, materialize


def cpu_of(fn) -> tuple[float, list[bool]]:
    """(CPU seconds of the finished children, the check verdicts) of one call of ``fn``."""
    before = os.times()
    verdicts = fn()
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system), verdicts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="bench-v6", help="the suite (default bench-v6)")
    ap.add_argument("--spec", action="append", help="spec ids (default: every spec with two or more table checks)")
    ap.add_argument("--reps", type=int, default=3, help="runs per way (default 3)")
    ap.add_argument("--isolation", default="none", help="the check boxes' backend (default none)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    cfg = load_config(Path(tempfile.mkdtemp(prefix="swarmgym-bench-box-")), environ={},
                      overrides={"sandbox.backend": args.isolation})
    suite = load_suite(args.suite, cfg.suites_dir)
    rows = []
    for spec in suite.specs:
        tables = [c for c in spec.checks_for(False) if c.kind in TABLE_KINDS]
        if len(tables) < 2 or (args.spec and spec.id not in args.spec):
            continue
        n_rows = sum(len(json.loads(c.table_file().read_text())["rows"]) for c in tables)
        with tempfile.TemporaryDirectory() as tmp:
            ws = materialize(suite, spec, Path(tmp) / spec.app_slug)

            def alone(ws=ws, tables=tables) -> list[bool]:
                return [r.passed for c in tables for r in grade(ws, [c], cfg, dimensions=CHECKS).check_results()]

            def shared(ws=ws, tables=tables) -> list[bool]:
                return [r.passed for r in grade(ws, tables, cfg, dimensions=CHECKS).check_results()]

            runs: dict[str, list[float]] = {"alone": [], "shared": []}
            for _ in range(args.reps):  # interleaved: alone, shared, alone, shared, ...
                for way, fn in (("alone", alone), ("shared", shared)):
                    cpu, verdicts = cpu_of(fn)
                    if not all(verdicts):
                        sys.exit(f"{spec.id}: the reference fails a table check graded {way}: {verdicts}")
                    runs[way].append(cpu)
        a, s = statistics.median(runs["alone"]), statistics.median(runs["shared"])
        rows.append({"spec": spec.id, "checks": len(tables), "rows": n_rows, "boxes_alone": len(tables),
                     "boxes_shared": 1, "cpu_alone_s": round(a, 3), "cpu_shared_s": round(s, 3),
                     "saved_s": round(a - s, 3)})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    t = Table(title=f"{args.suite}: table checks, a box each vs one shared fast-path box (reference apps; medians)",
              title_justify="left")
    for col in ("spec", "table checks", "rows", "cpu s alone", "cpu s shared", "saved s", "alone / shared"):
        t.add_column(col, justify="left" if col == "spec" else "right")
    for r in rows:
        t.add_row(r["spec"], str(r["checks"]), str(r["rows"]), f"{r['cpu_alone_s']:.2f}", f"{r['cpu_shared_s']:.2f}",
                  f"{r['saved_s']:.2f}", f"{r['cpu_alone_s'] / max(r['cpu_shared_s'], 1e-9):.2f}x")
    Console().print(t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
