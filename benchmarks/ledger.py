"""How ledger loading and report regeneration scale: 1k, 10k, 100k synthetic records.

    python benchmarks/ledger.py [--sizes 1000,10000,100000]

For each size it writes a synthetic ledger/sessions.jsonl (two variants x three specs on one
suite hash, plus a few exploratory and campaign records), then times:

- cold open   ``Ledger(dir)`` with no ledger.sqlite: the index is built from the jsonl
- warm open   ``Ledger(dir)`` again: the index is current, nothing is read
- regenerate  ``reports.regenerate(cfg)``: BENCHMARK.md + both CSVs from the ledger

and prints a table with each time and its growth ratio against the previous size (x10 records
should cost about x10 time: linear).  Goal: regenerate (+ warm open) on 100k under 3 s.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.reports import regenerate

SPECS = [("crud", "invtrack"), ("compute", "rdcalc"), ("txn", "txkvbench")]


def synth(ledger_dir: Path, n: int, seed: int = 7) -> None:
    rnd = random.Random(seed)
    ledger_dir.mkdir(parents=True, exist_ok=True)
    with open(ledger_dir / "sessions.jsonl", "w") as fh:
        for i in range(n):
            variant = ("mlx", "gguf")[i % 2]
            spec, slug = SPECS[(i // 2) % 3]
            mode, kind = "benchmark", "session"
            if i % 50 == 49:
                mode = "exploratory"
            if i % 500 == 499:
                kind = "campaign"
            ok = rnd.random() < (0.7 if variant == "mlx" else 0.5)
            status = "pass" if ok else rnd.choice(["fail", "partial", "error"])
            rec = {
                "schema_version": 1, "kind": kind, "session_id": f"s{i:07d}",
                "job_id": f"{'campaign:' if kind == 'campaign' else ''}c{i // 30}:{i:07d}",
                "campaign_id": f"c{i // 30}", "mode": mode, "spec": spec, "archetype": None, "app_slug": slug,
                "variant": variant, "tier": "high", "rep": (i // 6) % 10, "suite": "bench-v1",
                "suite_hash": "9f2c1e0b", "host": f"host-{i % 4}", "turns": 1, "overall": status,
                "functional": ok, "dimensions": {"checks": "pass" if ok else "fail", "swarm": "pass",
                                                 "cluster": rnd.choice(["pass", "partial"]), "diagnostics": "pass"},
                "wall_secs": rnd.uniform(30, 2400), "exit_code": 0 if ok else 1, "tasks_done": rnd.randint(3, 9),
                "tasks_failed": 0 if ok else 1, "flags": {"GOOSE_SWARM_GOALS": "1"} if i % 3 == 0 else {},
                "idle_nodes": [], "per_device": {"gpu-a": 4, "gpu-b": 2}, "error": None,
                "ts": 1.79e9 + i * 60, "data": {"status": "done"},
            }
            fh.write(json.dumps(rec) + "\n")


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            home = Path(tmp) / f"n{n}"
            synth(home / "ledger", n)
            cfg = load_config(home, environ={})
            cold, _ = timed(lambda cfg=cfg: Ledger(cfg.ledger_dir))
            warm, _ = timed(lambda cfg=cfg: Ledger(cfg.ledger_dir))
            regen, paths = timed(lambda cfg=cfg: regenerate(cfg))
            runs = sum(1 for _ in open(paths[1])) - 1
            rows.append((n, runs, cold, warm, regen))
    head = f"{'records':>9} {'bench runs':>10} {'cold open s':>12} {'ratio':>6} {'warm open s':>12} " \
           f"{'regenerate s':>13} {'ratio':>6} {'warm+regen s':>13}"
    print(head)
    print("-" * len(head))
    prev = None
    for n, runs, cold, warm, regen in rows:
        rc = f"{cold / prev[2]:.1f}x" if prev else "–"
        rr = f"{regen / prev[4]:.1f}x" if prev else "–"
        print(f"{n:>9} {runs:>10} {cold:>12.3f} {rc:>6} {warm:>12.4f} {regen:>13.3f} {rr:>6} {warm + regen:>13.3f}")
        prev = (n, runs, cold, warm, regen)
    big = rows[-1]
    verdict = "OK" if big[3] + big[4] < 3.0 else "SLOW"
    print(f"\ngoal: warm open + regenerate on {big[0]} records under 3 s -> {big[3] + big[4]:.2f} s {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
