"""What does running a shared prefix once save?  Each golden table of a suite against its reference app on
the driver's fast path, side by side: every row's steps run for it (``share`` off, as before) vs rows that
begin alike running their common steps once (``share`` on, the default).

For every table: rows, the steps the rows name, the steps the fast path runs when prefixes are shared (in
the driver's own batches), and the CPU seconds of the driver and every process it started (children's
user + system; ``--isolation none`` by default, so nothing is reaped out of sight), medians of ``--reps``
runs, the two ways interleaved.

    python benchmarks/prefixes.py [--suite bench-v6] [--spec fsm ...] [--reps 3] [--isolation none] [--json]
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
from swarmgym.grading import difftable
from swarmgym.isolation.sandbox import Limits, run_sandboxed
from swarmgym.suitekit.suite import TABLE_KINDS, load_suite, materialize


def steps_run(drv, rows: list[dict]) -> int:
    """The steps the fast path runs for ``rows`` (box inputs) with prefixes shared, batch by batch."""
    return sum(len({run for row in batch for run in drv.prefixes(row, True)})
               for batch in drv.batches(rows, difftable.STEPS_PER_FORK, share=True))


def cpu_of(command: str, ws: Path) -> float:
    c0 = os.times()
    run_sandboxed(command, ws, timeout=600, limits=Limits())
    c1 = os.times()
    return (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="bench-v6", help="the suite whose tables run (default bench-v6)")
    ap.add_argument("--spec", action="append", help="spec ids (default: every spec)")
    ap.add_argument("--reps", type=int, default=3, help="runs per way (default 3)")
    ap.add_argument("--isolation", default="none", help="the box's backend (default none: every process's CPU seen)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    cfg = load_config(Path(tempfile.mkdtemp(prefix="swarmgym-bench-prefixes-")), environ={},
                      overrides={"sandbox.backend": args.isolation})
    suite, drv, out = load_suite(args.suite, cfg.suites_dir), difftable.driver_module(), []
    for spec in suite.specs:
        if args.spec and spec.id not in args.spec:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            ws = materialize(suite, spec, Path(tmp) / spec.app_slug)
            for c in (c for c in spec.checks if c.kind in TABLE_KINDS and "golden_table" in c.name):
                table = difftable.load_table(c.table_file(), str(c.module))
                every = range(len(table["rows"]))
                cmds = {share: difftable.command(difftable.box_inputs(table, every, share=share)) for share in (False, True)}
                cpu: dict[bool, list[float]] = {False: [], True: []}
                for _ in range(args.reps):  # interleaved: off, on, off, on, ...
                    for share in (False, True):
                        cpu[share].append(cpu_of(cmds[share], ws))
                rows = difftable.box_inputs(table, every)["rows"]
                out.append({"spec": spec.id, "table": c.name, "rows": len(rows),
                            "steps": sum(len(r["steps"]) for r in rows), "steps_run": steps_run(drv, rows),
                            "cpu_each_s": round(statistics.median(cpu[False]), 3),
                            "cpu_shared_s": round(statistics.median(cpu[True]), 3)})
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    t = Table(title=f"{args.suite}'s golden tables on the fast path, reference apps (CPU s, medians of {args.reps})",
              title_justify="left")
    for col in ("spec", "table", "rows", "steps", "steps run shared", "cpu each row", "cpu shared", "ratio"):
        t.add_column(col, justify="left" if col in ("spec", "table") else "right")
    for r in out:
        t.add_row(r["spec"], r["table"], str(r["rows"]), str(r["steps"]), str(r["steps_run"]), f"{r['cpu_each_s']:.2f}",
                  f"{r['cpu_shared_s']:.2f}", f"{r['cpu_each_s'] / max(r['cpu_shared_s'], 1e-9):.2f}x")
    each, shared = sum(r["cpu_each_s"] for r in out), sum(r["cpu_shared_s"] for r in out)
    steps, run = sum(r["steps"] for r in out), sum(r["steps_run"] for r in out)
    t.add_row("all", "", str(sum(r["rows"] for r in out)), str(steps), str(run), f"{each:.2f}", f"{shared:.2f}",
              f"{each / max(shared, 1e-9):.2f}x")
    Console().print(t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
