"""runs/benchmark-runs.csv (one row per benchmark run) and runs/benchmark-summary.csv.

Both live in ``runs/`` next to BENCHMARK.md.  The runs CSV has the seed's 15 columns first, in the
seed's order, then ``adapter, flags, seed, host``; ``functional`` is 1/0, ``flags`` is ``K=V;K=V``.
Runs that could not run (``overall=infra``) are rows there, but the summary leaves them out of
its pass rates and counts them in ``infra``.  The summary has one row per arm (adapter + variant +
flags in effect) x spec plus an ``ALL`` roll-up per arm (all suite hashes of that arm together:
see BENCHMARK.md for same-hash pairing).
"""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

from swarmgym.core.atomic import atomic_write_text
from swarmgym.ledger.mapping import INFRA
from swarmgym.reports.bench import COLUMNS
from swarmgym.trend import stats
from swarmgym.trend.arms import arm
from swarmgym.trust.textsafe import shown

SEED_COLUMNS = ("variant", "tier", "spec", "app_slug", "session_id", "wall_secs", "functional", "overall",
                "checks", "swarm", "cluster", "diagnostics", "tasks_done", "tasks_failed", "exit_code")
RUNS_COLUMNS = (*SEED_COLUMNS, "adapter", "flags", "seed", "host")
SUMMARY_COLUMNS = ("variant", "spec", "runs", "passes", "pass_pct", "wilson_low_pct", "wilson_high_pct",
                   "wall_median", "wall_mean", "wall_p90", "wall_stdev", "wall_min", "wall_max", "infra")
_FUNCTIONAL = COLUMNS.index("functional")
_FLAGS = COLUMNS.index("flags")
_OVERALL = COLUMNS.index("overall")
_ADAPTER = COLUMNS.index("adapter")


def _num(x: float | None, digits: int = 3) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def write_runs(path: Path, rows: list[tuple]) -> Path:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(RUNS_COLUMNS)
    n = len(SEED_COLUMNS)  # COLUMNS starts with exactly the seed's columns, in order
    for r in rows:
        row = list(r[:n])
        row[_FUNCTIONAL] = 1 if row[_FUNCTIONAL] else 0
        row[5] = _num(row[5])
        row += [r[_ADAPTER], flags_cell(r[_FLAGS]), r[COLUMNS.index("seed")], r[COLUMNS.index("host")]]
        w.writerow("" if v is None else shown(v, markup=False) if isinstance(v, str) else v for v in row)
    return atomic_write_text(path, buf.getvalue())


def flags_cell(flags_json: str | None) -> str:
    try:
        flags = json.loads(flags_json or "{}")
    except ValueError:
        return flags_json or ""
    return ";".join(f"{k}={v}" for k, v in sorted(flags.items()))


def write_summary(path: Path, rows: list[tuple]) -> Path:
    per: dict[str, dict[str, tuple[list[bool], list[float]]]] = {}
    infra: dict[str, dict[str, int]] = {}
    for r in rows:
        variant, spec = arm(r[0], r[_FLAGS], r[_ADAPTER]), r[2] or ""
        if r[_OVERALL] == INFRA:
            per.setdefault(variant, {}).setdefault(spec, ([], []))
            infra.setdefault(variant, {})[spec] = infra.get(variant, {}).get(spec, 0) + 1
            continue
        oks, walls = per.setdefault(variant, {}).setdefault(spec, ([], []))
        oks.append(bool(r[_FUNCTIONAL]))
        if r[5] is not None:
            walls.append(r[5])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(SUMMARY_COLUMNS)
    for variant in sorted(per):
        specs = per[variant]
        every = ([o for oks, _ in specs.values() for o in oks], [x for _, ws in specs.values() for x in ws])
        bad = infra.get(variant, {})
        for spec, (oks, walls) in [*sorted(specs.items()), ("ALL", every)]:
            n, k = len(oks), sum(oks)
            lo, hi = stats.wilson(k, n)
            ws = stats.wall_stats(walls)
            w.writerow([shown(variant, markup=False), shown(spec, markup=False), n, k, _num(100 * k / n if n else math.nan, 1), _num(100 * lo, 1),
                        _num(100 * hi, 1), _num(ws.median), _num(ws.mean), _num(ws.p90), _num(ws.stdev),
                        _num(ws.min), _num(ws.max), sum(bad.values()) if spec == "ALL" else bad.get(spec, 0)])
    return atomic_write_text(path, buf.getvalue())
