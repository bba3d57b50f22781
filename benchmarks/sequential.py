"""How many runs does `swarmgym compare` save, and does it keep its error rate?

A simulation study of the procedure of :mod:`swarmgym.comparison.sequential` against the fixed `high` tier
(30 pairs = 60 runs, exact McNemar at the same alpha).  Outcomes come from the simulator's own
fault model: per spec, the fault rates of arm A (``gguf``, no flag) and arm B are read from
``swarmgym/sim/fleet.yaml`` through :func:`swarmgym.sim.faults.rates_for`; a run fails when a
fault fires that breaks the build (a code fault the spec has a mutant for — resolved by the
simulator's priority — a narrator, or a hang).  Like the simulator, both arms of a pair compare
the *same* uniform draws against their own rates (common random numbers), which is where the
pair correlation comes from.

Arm B per row: for effect > 0, ``GOOSE_SWARM_REVIEW=1``'s multipliers raised to the power ``t``
that gives the wanted pass-rate difference (t = 1 is the flag itself); for effect 0, a flag that
trades liars for narrators (liar x0.5, narrator raised so every spec's pass rate is unchanged):
the pairs disagree, the arms are equal — the hard null.  ``--coupling independent`` draws the
two arms independently instead (real goose, no shared seed).

    python benchmarks/sequential.py [--json] [--experiments 2000] [--max-runs N] [--coupling sim|independent]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scipy.optimize import brentq

from swarmgym.comparison import sequential
from swarmgym.comparison.compare import DEFAULT_MAX_RUNS
from swarmgym.sim.faults import CODE_FAULTS, rates_for
from swarmgym.sim.fleet import FAULT_KINDS, load_fleet
from swarmgym.suitekit.suite import load_suite

ROOT = Path(__file__).resolve().parent.parent
EFFECTS = (0.0, 0.1, 0.2, 0.3)
FIXED_PAIRS, ROUND = 30, 3        # the high tier: 3 specs x 10 reps; a compare round: 3 specs
BASE, FLAG = "gguf", "GOOSE_SWARM_REVIEW"
KINDS = list(FAULT_KINDS)


class Model:
    """Per-spec fault rates and which faults break the build, from fleet.yaml and the suite."""

    def __init__(self) -> None:
        fleet = load_fleet({})
        suite = load_suite("bench-v1", ROOT / "suites")
        self.specs = [s.id for s in suite.specs[:ROUND]]
        self.breaks = np.array([[k in {m.failure for m in suite.mutants(s)} or k in ("narrator", "hang")
                                 for k in KINDS] for s in suite.specs[:ROUND]])          # (specs, kinds)
        a = rates_for(fleet, BASE, {})
        b = rates_for(fleet, BASE, {FLAG: "1"})
        self.rate_a = np.array([a.faults[k] for k in KINDS])
        self.scale = np.array([b.faults[k] / a.faults[k] if a.faults[k] else 1.0 for k in KINDS])

    def fails(self, u: np.ndarray, rates: np.ndarray) -> np.ndarray:
        """u: (..., pairs, kinds) uniforms; a run fails when its resolved faults break the build."""
        spec = np.arange(u.shape[-2]) % len(self.specs)
        fired = u < rates
        brk = self.breaks[spec]                                                        # (pairs, kinds)
        code_idx = [KINDS.index(k) for k in CODE_FAULTS]
        code_fired = fired[..., code_idx]
        first = np.where(code_fired.any(-1), code_fired.argmax(-1), -1)                # by priority
        code_breaks = np.take_along_axis(brk[..., code_idx] * np.ones(fired.shape[:-1] + (1,), bool),
                                         np.maximum(first, 0)[..., None], -1)[..., 0] & (first >= 0)
        hang = fired[..., KINDS.index("hang")] & brk[..., KINDS.index("hang")]
        return code_breaks | hang

    def pass_rate(self, rates: np.ndarray, n: int = 400_000, seed: int = 7) -> float:
        u = np.random.default_rng(seed).random((n // ROUND, ROUND, len(KINDS)))
        return float(1 - self.fails(u, rates).mean())

    def arm_b(self, effect: float) -> tuple[np.ndarray, str]:
        if effect == 0:
            r = self.rate_a.copy()
            li, na = KINDS.index("liar"), KINDS.index("narrator")
            r[li] = self.rate_a[li] * 0.5
            r[na] = 1 - (1 - self.rate_a[li]) * (1 - self.rate_a[na]) / (1 - r[li])
            return r, "trade: liar x0.5, narrator up (equal pass rates)"
        base = self.pass_rate(self.rate_a)
        t = brentq(lambda t: self.pass_rate(self.rate_a * self.scale ** t) - base - effect, 0.0, 20.0, xtol=1e-4)
        return self.rate_a * self.scale ** t, f"{FLAG}=1 multipliers ^ {t:.2f}"


def draw(model: Model, rate_b: np.ndarray, experiments: int, pairs: int, coupling: str, rng) -> np.ndarray:
    """Pair outcomes D = B - A, (experiments, pairs)."""
    u = rng.random((experiments, pairs, len(KINDS)))
    v = u if coupling == "sim" else rng.random(u.shape)
    a_pass = ~model.fails(u, model.rate_a)
    b_pass = ~model.fails(v, rate_b)
    return (b_pass.astype(np.int8) - a_pass.astype(np.int8))


def fixed_reject(d: np.ndarray, alpha: float) -> np.ndarray:
    b, c = (d < 0).sum(1), (d > 0).sum(1)
    k = sequential.mcnemar_critical(b + c, alpha)
    return (k >= 0) & (np.minimum(b, c) <= k)


def study(experiments: int, alpha: float, max_runs: int, coupling: str, min_effect: float, seed: int) -> dict:
    model = Model()
    rng = np.random.default_rng(seed)
    budget = max_runs // 2 // ROUND * ROUND
    rows = []
    for effect in EFFECTS:
        rate_b, how = model.arm_b(effect)
        d = draw(model, rate_b, experiments, max(budget, FIXED_PAIRS), coupling, rng)
        fixed = fixed_reject(d[:, :FIXED_PAIRS], alpha)
        sim = sequential.simulate(d[:, :budget], ROUND, alpha=alpha, min_effect=min_effect, grid=201)
        wrong = 1 if effect >= 0 else 0   # index of the wrong-sign decision "A" when B is better
        rows.append({"effect": effect, "fixed_runs": 2 * FIXED_PAIRS, "fixed_reject_rate": float(fixed.mean()),
                     "adaptive_runs_mean": float(2 * sim.pairs.mean()),
                     "adaptive_reject_rate": float(np.isin(sim.decision, (0, 1)).mean()),
                     "wrong_sign_rate": float((sim.decision == wrong).mean()) if effect else 0.0,
                     "no_difference_rate": float((sim.decision == 2).mean()),
                     "discordance": float((d[:, :FIXED_PAIRS] != 0).mean()), "arm_b": how})
    return {"alpha": alpha, "experiments": experiments, "max_runs": 2 * budget, "coupling": coupling,
            "min_effect": min_effect, "rows": rows}


def goals(out: dict) -> list[tuple[str, bool]]:
    res = []
    r0 = next(r for r in out["rows"] if r["effect"] == 0)
    se = math.sqrt(out["alpha"] * (1 - out["alpha"]) / out["experiments"])
    text = f"type-I error at effect 0: {r0['adaptive_reject_rate']:.3f} <= alpha {out['alpha']} (MC s.e. {se:.3f})"
    res.append((text, r0["adaptive_reject_rate"] <= out["alpha"]))
    for r in out["rows"]:
        if r["effect"] >= 0.2:
            share = r["adaptive_runs_mean"] / r["fixed_runs"]
            res.append((f"effect {r['effect']}: power {r['adaptive_reject_rate']:.3f} >= fixed {r['fixed_reject_rate']:.3f}",
                        r["adaptive_reject_rate"] >= r["fixed_reject_rate"]))
            res.append((f"effect {r['effect']}: runs {r['adaptive_runs_mean']:.1f} = {share:.0%} of fixed <= 60 %",
                        share <= 0.6))
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--experiments", type=int, default=2000)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--min-effect", type=float, default=0.1)
    ap.add_argument("--max-runs", type=int, default=DEFAULT_MAX_RUNS)
    ap.add_argument("--coupling", choices=["sim", "independent"], default="sim")
    ap.add_argument("--seed", type=int, default=20261201)
    args = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    out = study(args.experiments, args.alpha, args.max_runs, args.coupling, args.min_effect, args.seed)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    out["cpu_seconds"] = round(time.process_time() - c0, 1)
    if args.json:
        print(json.dumps(out))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"fixed high tier vs sequential compare — {args.coupling} coupling, alpha {args.alpha}, "
                    f"{args.experiments} experiments/row, budget {out['max_runs']} runs, {out['seconds']} s wall / {out['cpu_seconds']} s CPU")
    for col in ("effect", "arm B", "discord.", "fixed runs", "fixed reject", "seq runs (mean)", "runs ratio",
                "seq reject", "wrong sign", "no diff."):
        t.add_column(col, justify="right")
    for r in out["rows"]:
        t.add_row(f"{r['effect']:.1f}", r["arm_b"], f"{r['discordance']:.3f}", str(r["fixed_runs"]),
                  f"{r['fixed_reject_rate']:.3f}", f"{r['adaptive_runs_mean']:.1f}",
                  f"{r['adaptive_runs_mean'] / r['fixed_runs']:.2f}x", f"{r['adaptive_reject_rate']:.3f}",
                  f"{r['wrong_sign_rate']:.3f}", f"{r['no_difference_rate']:.3f}")
    c = Console(width=200)
    c.print(t)
    for text, ok in goals(out):
        c.print(("[green]met[/]  " if ok else "[red]missed[/] ") + text)


if __name__ == "__main__":
    main()
