"""``swarmgym plan --effect 0.1``: how many runs a comparison needs, from past disagreement.

The discordance rate ``psi`` (share of pairs where exactly one arm built a functional app) is what a paired
comparison's cost depends on; it is read from the ledger (:mod:`swarmgym.comparison.history`).  Without any
pair in the ledger the default ``psi = 0.5`` is used (independent runs at a 50 % pass rate: the most
disagreement, so the most runs) and the output says so.  The fixed design's runs are searched exactly
(exact McNemar); the sequential design's budget and mean runs come from its normal approximation
(:func:`swarmgym.trend.sequential.forecast`; ``benchmarks/sequential.py`` sets them beside simulation).
"""
from __future__ import annotations

from dataclasses import dataclass

from swarmgym.comparison.arms import Arm
from swarmgym.comparison.history import History, history
from swarmgym.config import Config
from swarmgym.core.errors import UsageError
from swarmgym.suitekit.suite import load_suite
from swarmgym.trend import sequential

DEFAULT_PSI = 0.5


@dataclass
class Plan:
    effect: float
    alpha: float
    power: float
    psi: float
    psi_source: str
    fixed_runs: int | None
    seq_runs_mean: float | None
    seq_budget_runs: int | None
    rho: float
    history: History


def plan(cfg: Config, effect: float, *, alpha: float = 0.05, power: float = 0.8, a: Arm | None = None,
         b: Arm | None = None, suite: str | None = None) -> Plan:
    if not 0 < effect < 1:
        raise UsageError(f"--effect: expected a pass-rate difference in (0, 1), got {effect}")
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise UsageError("--alpha and --power: expected numbers in (0, 1)")
    h = history(cfg, a, b)
    if h.psi is None:
        psi, source = DEFAULT_PSI, "default (no paired runs in the ledger)"
    else:
        psi, source = h.psi, h.source()
    rho = sequential.rho_for(h.psi)
    if psi < effect:
        psi, source = effect, source + f"; raised to the effect {effect:g} (an effect needs that much disagreement)"
    per_round = len(load_suite(suite or cfg.suite, cfg.suites_dir).specs)
    fc = sequential.forecast(psi, effect, alpha, power, per_round=per_round, rho=rho)
    return Plan(effect, alpha, power, psi, source, 2 * fc.fixed_pairs if fc.fixed_pairs else None,
                2 * fc.mean_pairs if fc.mean_pairs else None, 2 * fc.budget_pairs if fc.budget_pairs else None,
                rho, h)
