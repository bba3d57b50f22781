"""How many runs does `swarmgym tune` need to find the best of K arms, against running every arm equally?

A simulation study of :class:`swarmgym.trend.race.Race` (the race ``tune`` runs) on K = 4 and K = 8 arms whose
best leads the next by 0.2, at 95 % confidence with ``--min-effect 0.2`` (the lead to be found).  Per row, the
race's runs (mean and the spread over experiments: 10th, 50th and 90th percentile), how often it named the
best arm and how often a wrong one, against **uniform allocation**: every arm the same number of runs, the one with most passes named
best (ties broken at random), sized — the smallest number of rounds — for 95 % correct selection:

- *LFC*: sized for the least favourable configuration of that promise (best 0.6, every other arm 0.4) under
  the row's own coupling: what a user can plan without knowing how the other arms spread;
- *LFC, independent*: the same, sized as if runs were independent — what can be planned without knowing the
  coupling either, and the promise the race keeps (it assumes no coupling);
- *oracle*: sized on the very configuration of the row (the spread and the coupling known in advance).

Configurations (pass rates; the first arm is best, the last is the baseline):

- ``spread``: 0.7, then 0.5 and the rest evenly down to 0.2;
- ``lfc``: 0.6 and every other arm 0.4.

Rounds run every contender the race picks once on each of 3 specs (bench-v2); ``sim`` coupling compares every arm's rates against
the same uniform draw per spec and seed (common random numbers, as ``swarmgym-sim`` does), ``independent``
draws each arm on its own (real swarms).

    python benchmarks/tune.py [--json] [--experiments 400] [--coupling both|sim|independent]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from swarmgym.trend.race import BEST, Race

ROUND = 3
CONFIDENCE, MIN_EFFECT, LEAD = 0.95, 0.2, 0.2
GOAL = 0.5          # issue #32: at most half the runs of uniform allocation sized for the same correctness
SIM_GOAL = 1.0      # ... and on the simulator's paired runs no more than uniform allocation on the same pairs


def configs(k: int) -> dict[str, list[float]]:
    return {"spread": [0.7, 0.5, *np.linspace(0.45, 0.2, k - 2).round(3)], "lfc": [0.6] + [0.4] * (k - 1)}


def draw(rng, p: np.ndarray, n_exp: int, coupling: str) -> np.ndarray:
    u = rng.random((n_exp, 1)) if coupling == "sim" else rng.random((n_exp, len(p)))
    return u < p


def race(p: list[float], n_exp: int, coupling: str, rng, max_rounds: int) -> Race:
    k = len(p)
    r = Race(k, alpha=1 - CONFIDENCE, min_effect=MIN_EFFECT, baseline=k - 1, n_exp=n_exp)
    arr = np.asarray(p)
    for rnd in range(max_rounds):
        for _ in range(ROUND):
            r.observe(draw(rng, arr, n_exp, coupling))
        r.review(budget_spent=rnd == max_rounds - 1)
        if not r.running.any():
            break
    return r


def uniform_runs(p: list[float], target: float, coupling: str, rng, n_exp: int = 8000, limit: int = 400) -> int | None:
    """Runs (all arms) of the smallest uniform design whose most-passing arm is the best in ``target`` of cases."""
    arr, k = np.asarray(p), len(p)
    passes = np.zeros((n_exp, k))
    for rounds in range(1, limit + 1):
        for _ in range(ROUND):
            passes += draw(rng, arr, n_exp, coupling)
        pick = (passes + rng.random((n_exp, k)) * 0.5).argmax(axis=1)
        if (pick == 0).mean() >= target:
            return k * ROUND * rounds
    return None


def study(experiments: int, coupling: str, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    rows = []
    for k in (4, 8):
        lfc = uniform_runs(configs(k)["lfc"], CONFIDENCE, coupling, rng)
        lfc_ind = lfc if coupling == "independent" else uniform_runs(configs(k)["lfc"], CONFIDENCE, "independent", rng)
        for name, p in configs(k).items():
            oracle = uniform_runs(p, CONFIDENCE, coupling, rng)
            budget_rounds = max(10, 4 * (lfc or 100) // (k * ROUND))
            r = race(p, experiments, coupling, rng, budget_rounds)
            runs = r.runs
            correct = float(((r.winner == 0) & (r.decision == BEST)).mean())
            wrong = float(((r.winner != 0) & (r.decision != "undecided")).mean())
            rows.append({"k": k, "config": name, "pass_rates": [float(x) for x in p], "race_runs_mean": float(runs.mean()),
                         "race_runs_p10_p50_p90": [float(np.percentile(runs, q)) for q in (10, 50, 90)],
                         "race_correct": correct, "race_wrong": wrong,
                         "undecided": float((r.decision == "undecided").mean()),
                         "budget_runs": budget_rounds * ROUND * k, "uniform_lfc_runs": lfc, "uniform_oracle_runs": oracle,
                         "ratio_lfc": float(runs.mean()) / lfc if lfc else None, "uniform_lfc_independent_runs": lfc_ind,
                         "ratio_lfc_independent": float(runs.mean()) / lfc_ind if lfc_ind else None,
                         "ratio_oracle": float(runs.mean()) / oracle if oracle else None})
    return {"coupling": coupling, "experiments": experiments, "confidence": CONFIDENCE, "min_effect": MIN_EFFECT,
            "rows": rows}


def goals(out: dict) -> list[tuple[str, bool]]:
    res = []
    for r in out["rows"]:
        res.append((f"[{out['coupling']}] K={r['k']} {r['config']}: best named in {r['race_correct']:.3f} of races "
                    f">= {CONFIDENCE}", r["race_correct"] >= CONFIDENCE))
        if r["config"] == "spread" and r["ratio_lfc"] is not None:
            goal = GOAL if out["coupling"] == "independent" else SIM_GOAL
            res.append((f"[{out['coupling']}] K={r['k']} spread: {r['race_runs_mean']:.0f} runs = {r['ratio_lfc']:.2f}x "
                        f"uniform sized for 95 % on the same coupling ({r['uniform_lfc_runs']}) <= {goal}x",
                        r["ratio_lfc"] <= goal))
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--experiments", type=int, default=400)
    ap.add_argument("--coupling", choices=["both", "sim", "independent"], default="both")
    ap.add_argument("--seed", type=int, default=20261203)
    args = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    outs = [study(args.experiments, c, args.seed) for c in (["independent", "sim"] if args.coupling == "both"
                                                             else [args.coupling])]
    meta = {"seconds": round(time.perf_counter() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1)}
    if args.json:
        print(json.dumps({"studies": outs, **meta}))
        return
    from rich.console import Console
    from rich.table import Table

    c = Console(width=220)
    for out in outs:
        t = Table(title=f"tune: runs to name the best arm — {out['coupling']} coupling, confidence {CONFIDENCE}, "
                        f"min effect {MIN_EFFECT}, {out['experiments']} races/row")
        for col in ("K", "config", "pass rates", "race runs mean", "p10 / p50 / p90", "named best", "wrong",
                    "uniform (LFC)", "race / LFC", "uniform (LFC, indep.)", "race / LFC indep.", "uniform (oracle)",
                    "race / oracle"):
            t.add_column(col, justify="right")
        for r in out["rows"]:
            t.add_row(str(r["k"]), r["config"], " ".join(f"{x:g}" for x in r["pass_rates"]), f"{r['race_runs_mean']:.0f}",
                      " / ".join(f"{x:.0f}" for x in r["race_runs_p10_p50_p90"]), f"{r['race_correct']:.3f}",
                      f"{r['race_wrong']:.3f}", str(r["uniform_lfc_runs"]), f"{r['ratio_lfc']:.2f}x",
                      str(r["uniform_lfc_independent_runs"]), f"{r['ratio_lfc_independent']:.2f}x", str(r["uniform_oracle_runs"]),
                      f"{r['ratio_oracle']:.2f}x")
        c.print(t)
        for text, ok in goals(out):
            c.print(("[green]met[/]    " if ok else "[red]missed[/] ") + text)
    c.print(f"{meta['seconds']} s wall / {meta['cpu_seconds']} s CPU")


if __name__ == "__main__":
    main()
