"""How many runs does `swarmgym compare` need, against the fixed design, at the same error and power?

A simulation study of :mod:`swarmgym.trend.sequential` (group-sequential exact McNemar, α spending) against
the fixed design (exact McNemar at the same α), both at 80 % power, and against the previous sequential test
(a Beta(a, a) mixture e-value on the discordant pairs, a ≈ 0.253: what `compare` used before issue #32).

Outcomes come from the simulator's own fault model: per spec, the fault rates of arm A (``gguf``, no flag)
and arm B are read from ``swarmgym/sim/fleet.yaml`` through :func:`swarmgym.sim.faults.rates_for`; a run
fails when a fault fires that breaks the build (a code fault the spec has a mutant for — resolved by the
simulator's priority — a narrator, or a hang).  Arm B per row: ``GOOSE_SWARM_REVIEW=1``'s multipliers raised
to the power that gives the wanted pass-rate difference; at effect 0 a flag that trades liars for narrators
at equal pass rates (the pairs disagree, the arms are equal: the hard null).

- ``--coupling sim``: both arms of a pair compare the *same* uniform draws against their own rates (common
  random numbers, as ``swarmgym-sim`` does): discordant pairs are one-sided.
- ``--coupling independent``: the two arms are drawn independently (real goose: no shared seed).

Per effect: the fixed design's pairs for 80 % power (smallest N, searched on the drawn pairs); the sequential
design's smallest budget (whole rounds of 3 pairs) reaching 80 % power and the runs it spends on average
under that budget (decided or not: every run counts); the same for the previous e-value test; what
``swarmgym plan`` forecasts for the new design (normal approximation); and, at effect 0, how often each
test decides anything at all (type-I error, at the largest budget of the table).  The spending shape is
chosen from the disagreement rate as ``compare`` chooses it from the ledger (:func:`rho_for`).

    python benchmarks/sequential.py [--json] [--experiments 2000] [--coupling both|sim|independent]
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
from scipy.special import betaln

from swarmgym.sim.faults import CODE_FAULTS, rates_for
from swarmgym.sim.fleet import FAULT_KINDS, load_fleet
from swarmgym.suitekit.suite import load_suite
from swarmgym.trend import sequential

ROOT = Path(__file__).resolve().parent.parent
EFFECTS = (0.0, 0.15, 0.2, 0.3)
ROUND = 3                        # a compare round of bench-v1/v2: 3 specs, 3 pairs
POWER = 0.8
BASE, FLAG = "gguf", "GOOSE_SWARM_REVIEW"
KINDS = list(FAULT_KINDS)
GOAL_INDEPENDENT = 0.7          # issue #32: at most 0.7x the fixed design's runs at every effect >= 0.2


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
            return r, "trade: liar x0.5, narrator up"
        base = self.pass_rate(self.rate_a)
        t = brentq(lambda t: self.pass_rate(self.rate_a * self.scale ** t) - base - effect, 0.0, 20.0, xtol=1e-4)
        return self.rate_a * self.scale ** t, f"{FLAG}=1 ^ {t:.2f}"


def draw(model: Model, rate_b: np.ndarray, experiments: int, pairs: int, coupling: str, rng) -> np.ndarray:
    """Pair outcomes D = B - A, (experiments, pairs)."""
    u = rng.random((experiments, pairs, len(KINDS)))
    v = u if coupling == "sim" else rng.random(u.shape)
    return ~model.fails(v, rate_b) * 1 - ~model.fails(u, model.rate_a) * 1


# --- the three designs on drawn pairs -----------------------------------------------------------

def fixed_power(d: np.ndarray, n: int, alpha: float) -> float:
    b, c = (d[:, :n] < 0).sum(1), (d[:, :n] > 0).sum(1)
    k = sequential.mcnemar_critical(b + c, alpha)
    return float(((k >= 0) & (b <= k)).mean())


def previous_first(d: np.ndarray, alpha: float) -> np.ndarray:
    """Round (0-based) at which the previous test (Beta(a, a) mixture e-value ≥ 1/α, a ≈ 0.253) decides B;
    a huge number when it never does."""
    ends = np.arange(ROUND - 1, d.shape[1], ROUND)
    b = np.cumsum(d > 0, 1)[:, ends]
    a_ = np.cumsum(d < 0, 1)[:, ends]
    a = 0.2529
    log_e = betaln(a + b, a + a_) - betaln(a, a) + (a_ + b) * math.log(2)
    hit = (log_e >= math.log(1 / alpha)) & (b > a_)
    return np.where(hit.any(1), hit.argmax(1), 10**9)


def seq_power(d: np.ndarray, rounds: int, alpha: float, rho: float) -> tuple[float, float, float]:
    """(power, mean runs, any-decision rate) of the α-spending design with a budget of ``rounds``."""
    sim = sequential.simulate(d[:, :rounds * ROUND], ROUND, alpha=alpha, rho=rho)
    return float((sim.decision == 0).mean()), float(2 * sim.pairs.mean()), float((sim.decision < 2).mean())


def smallest(ok, lo: int, hi: int) -> int | None:
    """Smallest n in [lo, hi] with ok(n) (monotone in n, checked by bisection then backed off)."""
    if not ok(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def study(experiments: int, alpha: float, coupling: str, seed: int) -> dict:
    model = Model()
    rng = np.random.default_rng(seed)
    rows, budgets = [], []
    for effect in EFFECTS[1:]:
        rate_b, how = model.arm_b(effect)
        probe = draw(model, rate_b, 4000, 300, coupling, rng)
        psi = float((probe != 0).mean())
        rho = sequential.rho_for(psi)
        guess = sequential.fixed_pairs(psi, max(1e-3, float(probe.mean())), alpha, POWER) or 300
        horizon = int(2.5 * guess) // ROUND * ROUND + ROUND
        d = draw(model, rate_b, experiments, horizon, coupling, rng)
        fixed = smallest(lambda n, d=d: fixed_power(d, n, alpha) >= POWER, 1, horizon)
        budget = smallest(lambda r, d=d, rho=rho: seq_power(d, r, alpha, rho)[0] >= POWER, 1, horizon // ROUND)
        power, runs, _ = seq_power(d, budget, alpha, rho) if budget else (math.nan, math.nan, math.nan)
        first = previous_first(d, alpha)
        prev_cap = smallest(lambda r, first=first: (first < r).mean() >= POWER, 1, horizon // ROUND)
        prev_runs = 2 * ROUND * float(np.minimum(first + 1, prev_cap).mean()) if prev_cap else math.nan
        fc = sequential.forecast(psi, float(d.mean()), alpha, POWER, per_round=ROUND, rho=rho)
        disc_at_decision = _one_sided_at_decision(d, budget, alpha, rho) if budget else None
        budgets.append(budget or 0)
        rows.append({"effect": effect, "arm_b": how, "discordance": psi, "rho": rho,
                     "fixed_runs": 2 * fixed if fixed else None,
                     "seq_budget_runs": 2 * ROUND * budget if budget else None, "seq_power": power,
                     "seq_runs_mean": runs, "seq_ratio": runs / (2 * fixed) if fixed else None,
                     "prev_budget_runs": 2 * ROUND * prev_cap if prev_cap else None, "prev_runs_mean": prev_runs,
                     "prev_ratio": prev_runs / (2 * fixed) if fixed else None,
                     "plan_budget_runs": 2 * fc.budget_pairs if fc.budget_pairs else None,
                     "plan_runs_mean": 2 * fc.mean_pairs if fc.mean_pairs else None,
                     "fewest_one_sided_decision": disc_at_decision})
    # type-I error: the null arm at the largest budget of the table (most looks)
    rate_b, how = model.arm_b(0.0)
    rounds = max(budgets) or 60
    d = draw(model, rate_b, max(experiments, 4000), rounds * ROUND, coupling, rng)
    psi = float((d != 0).mean())
    _, runs, reject = seq_power(d, rounds, alpha, sequential.rho_for(psi))
    prev = float((previous_first(d, alpha) < rounds).mean()) + float(
        (previous_first(-d, alpha) < rounds).mean())
    null = {"effect": 0.0, "arm_b": how, "discordance": psi, "budget_runs": 2 * ROUND * rounds,
            "seq_type1": reject, "prev_type1": prev, "experiments": len(d)}
    return {"alpha": alpha, "power": POWER, "experiments": experiments, "coupling": coupling, "rows": rows,
            "null": null}


def _one_sided_at_decision(d: np.ndarray, budget: int, alpha: float, rho: float) -> int | None:
    """The fewest discordant pairs (all won by one arm) at which the design decided, over the experiments."""
    sim = sequential.simulate(d[:, :budget * ROUND], ROUND, alpha=alpha, rho=rho)
    out = None
    for i in np.nonzero(sim.decision == 0)[0]:
        seen = d[i, :sim.pairs[i]]
        if (seen >= 0).all():
            m = int((seen != 0).sum())
            out = m if out is None else min(out, m)
    return out


def goals(out: dict) -> list[tuple[str, bool]]:
    res = []
    n = out["null"]
    se = math.sqrt(out["alpha"] * (1 - out["alpha"]) / n["experiments"])
    res.append((f"[{out['coupling']}] type-I error {n['seq_type1']:.4f} <= alpha {out['alpha']} (MC s.e. {se:.4f})",
                n["seq_type1"] <= out["alpha"] + 2 * se))
    for r in out["rows"]:
        if r["effect"] < 0.2 or r["seq_ratio"] is None:
            continue
        if out["coupling"] == "independent":
            res.append((f"[independent] effect {r['effect']}: {r['seq_runs_mean']:.0f} runs = {r['seq_ratio']:.2f}x "
                        f"the fixed design's {r['fixed_runs']} <= {GOAL_INDEPENDENT}x", r["seq_ratio"] <= GOAL_INDEPENDENT))
        else:   # no worse than the previous test, on the same metric
            res.append((f"[sim] effect {r['effect']}: {r['seq_runs_mean']:.0f} runs = {r['seq_ratio']:.2f}x the fixed "
                        f"design's {r['fixed_runs']} <= the previous test's {r['prev_ratio']:.2f}x",
                        r["seq_ratio"] <= r["prev_ratio"]))
    if out["coupling"] == "sim":
        fewest = min((r["fewest_one_sided_decision"] for r in out["rows"] if r["fewest_one_sided_decision"]),
                     default=None)
        res.append((f"[sim] decided after {fewest} one-sided discordant pairs (the fewest any level-0.05 test can: 6)",
                    fewest == 6))
    return res


def _num(x: float | None) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--experiments", type=int, default=2000)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--coupling", choices=["both", "sim", "independent"], default="both")
    ap.add_argument("--seed", type=int, default=20261201)
    args = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    couplings = ["independent", "sim"] if args.coupling == "both" else [args.coupling]
    outs = [study(args.experiments, args.alpha, c, args.seed) for c in couplings]
    meta = {"seconds": round(time.perf_counter() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1)}
    if args.json:
        print(json.dumps({"studies": outs, **meta}))
        return
    from rich.console import Console
    from rich.table import Table

    c = Console(width=220)
    for out in outs:
        t = Table(title=f"runs to decide at {POWER:.0%} power — {out['coupling']} coupling, alpha {out['alpha']}, "
                        f"{out['experiments']} experiments/row, rounds of {ROUND} pairs")
        for col in ("effect", "arm B", "discord.", "ρ", "fixed runs", "seq budget", "seq runs (mean)", "seq/fixed",
                    "previous runs", "prev/fixed", "plan: budget / mean", "fewest 1-sided"):
            t.add_column(col, justify="right")
        for r in out["rows"]:
            t.add_row(f"{r['effect']:.2f}", r["arm_b"], f"{r['discordance']:.3f}", f"{r['rho']:g}",
                      str(r["fixed_runs"]), str(r["seq_budget_runs"]), f"{r['seq_runs_mean']:.1f}",
                      f"{r['seq_ratio']:.2f}x", f"{r['prev_runs_mean']:.1f}", f"{r['prev_ratio']:.2f}x",
                      f"{r['plan_budget_runs']} / {_num(r['plan_runs_mean'])}", str(r["fewest_one_sided_decision"]))
        c.print(t)
        n = out["null"]
        c.print(f"effect 0 ({n['arm_b']}, discordance {n['discordance']:.3f}) over {n['budget_runs']} runs, "
                f"{n['experiments']} experiments: type-I error {n['seq_type1']:.4f} (previous test {n['prev_type1']:.4f})")
        for text, ok in goals(out):
            c.print(("[green]met[/]    " if ok else "[red]missed[/] ") + text)
    c.print(f"{meta['seconds']} s wall / {meta['cpu_seconds']} s CPU")


if __name__ == "__main__":
    main()
