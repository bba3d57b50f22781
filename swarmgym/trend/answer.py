"""One question, one answer: arm B (the second named) against arm A (the first), said the same everywhere.

Every place that compares two arms — ``compare`` (text, ``--json``, its page), ``bench-report`` (text,
``--json``, BENCHMARK.md/.html) and ``report --compare`` (COMPARE.html) — builds an :class:`Answer` and
renders it with the functions here: the effect is **B minus A** (the second named arm minus the first),
with its interval and one decision; the tone (better, worse, neutral) is for arm B, and every colour
follows it; an ``undecided`` answer ends with the next step as a command.

- A ``compare`` answers with its sequential test (:mod:`swarmgym.trend.sequential`).
- Pooled runs (``bench-report``, ``report --compare``) answer with the exact McNemar test on the pairs
  formed on their units (:mod:`swarmgym.trend.units`), duplicates folded; its interval is the
  Clopper–Pearson interval of θ (the share of discordant pairs B won, at α: it excludes ½ exactly when the
  test rejects) times the disagreement rate's (at α/10): ``δ = ψ (2θ − 1)``.
- The next step is ``swarmgym compare A B --max-runs N``: N is the budget with which the sequential test
  detects ``min_effect`` with 80 % power at the disagreement seen so far (:func:`sequential.forecast`).
"""
from __future__ import annotations

import math
import shlex
from dataclasses import asdict, dataclass, fields
from typing import Any, Sequence

from swarmgym.trend import sequential, stats

ALPHA = 0.05
MIN_EFFECT = 0.1          # the smallest pass-rate difference that matters (compare's --min-effect default)
NEXT_POWER = 0.8          # the power the next step's budget is sized for
WORDS = {"B": "{b} better", "A": "{a} better", "no difference": "no difference", "undecided": "undecided",
         "continue": "continue"}
TONE_COLORS = {"better": "#2e7d32", "worse": "#c62828", "neutral": "#1565c0"}
TONE_RICH = {"better": "green", "worse": "red", "neutral": "yellow"}


@dataclass(frozen=True)
class Answer:
    """B (``second``) against A (``first``): what every view of one comparison says."""

    first: str                # arm A's label
    second: str               # arm B's label
    decision: str             # B | A | no difference | undecided (| continue while a compare runs)
    effect: float             # B's pass rate minus A's, on the paired runs
    lo: float                 # the interval for the effect
    hi: float
    p_value: float
    pairs: int
    a_only: int               # discordant pairs only A passed
    b_only: int               # discordant pairs only B passed
    method: str               # how it was decided, in words
    alpha: float = ALPHA
    min_effect: float = MIN_EFFECT
    runs: int = 0             # runs behind the pairs (both arms)
    folded: int = 0           # duplicate runs of replaying swarms counted once
    next_command: str | None = None   # the next step, for an undecided answer

    @property
    def winner(self) -> str | None:
        return self.second if self.decision == "B" else self.first if self.decision == "A" else None

    @property
    def tone(self) -> str:
        """For arm B: better, worse, or neutral (nothing decided)."""
        return {"B": "better", "A": "worse"}.get(self.decision, "neutral")

    @property
    def color(self) -> str:
        return TONE_COLORS[self.tone]

    @property
    def verdict(self) -> str:
        """The decision in words: ``gguf [GOOSE_SWARM_REVIEW=1] better``, ``no difference``, ``undecided``."""
        return WORDS.get(self.decision, self.decision).format(a=self.first, b=self.second)

    def line(self) -> str:
        """The one line every text view prints."""
        out = (f"{self.second} − {self.first}: {pp(self.effect)} [{pp(self.lo)}, {pp(self.hi)}], "
               f"p = {pval(self.p_value)} on {self.pairs} pairs ({self.a_only} A-only, {self.b_only} B-only) → "
               f"{self.verdict}")
        if self.folded:
            out += f"; {self.folded} repeated run(s) folded"
        if self.next_command:
            out += f"; next: {self.next_command}"
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Answer:
        """The answer back from :meth:`json` (a page drawn from a saved summary)."""
        given = {f.name: d[f.name] for f in fields(cls) if f.name in d}
        if given.get("p_value") is None:
            given["p_value"] = math.nan
        return cls(**given)

    def json(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(interval=[round(self.lo, 4), round(self.hi, 4)], effect=round(self.effect, 4),
                 lo=round(self.lo, 4), hi=round(self.hi, 4), verdict=self.verdict, tone=self.tone,
                 winner=self.winner, sign="second minus first",
                 p_value=None if math.isnan(self.p_value) else self.p_value)   # JSON has no NaN
        return d


def pp(x: float) -> str:
    """A pass-rate difference in percentage points, signed: ``+17.6 pp``."""
    return "–" if x is None or math.isnan(x) else f"{100 * x:+.1f} pp"


def pval(p: float) -> str:
    return "–" if math.isnan(p) else (f"{p:.4f}" if p >= 0.0001 else f"{p:.1e}")


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """The exact central ``1 − alpha`` interval of a binomial proportion (``(0, 1)`` when ``n == 0``)."""
    from scipy.special import betaincinv  # scipy.stats.beta.ppf's function, without scipy.stats' second of imports
    if n == 0:
        return 0.0, 1.0
    lo = 0.0 if k == 0 else float(betaincinv(k, n - k + 1, alpha / 2))
    hi = 1.0 if k == n else float(betaincinv(k + 1, n - k, 1 - alpha / 2))
    return lo, hi


def pooled(first: str, second: str, pair_outcomes: Sequence[tuple[bool, bool]], *, runs: int = 0, folded: int = 0,
           alpha: float = ALPHA, min_effect: float = MIN_EFFECT, next_command: str | None = None) -> Answer:
    """The answer of pooled runs: exact McNemar on the pairs (A functional, B functional)."""
    n = len(pair_outcomes)
    b_only = sum(1 for a, b in pair_outcomes if b and not a)
    a_only = sum(1 for a, b in pair_outcomes if a and not b)
    m = a_only + b_only
    p = stats.mcnemar_counts(a_only, b_only, n).p
    th_lo, th_hi = clopper_pearson(b_only, m, alpha)
    ps_lo, ps_hi = clopper_pearson(m, n, alpha * sequential.PSI_SHARE)
    lo, hi = sequential.effect_bounds(th_lo, th_hi, ps_lo, ps_hi) if n else (-1.0, 1.0)
    if p <= alpha and a_only != b_only:
        decision = "B" if b_only > a_only else "A"
    elif n and -min_effect < lo and hi < min_effect:
        decision = "no difference"
    else:
        decision = "undecided"
    return Answer(first=first, second=second, decision=decision, effect=(b_only - a_only) / n if n else 0.0,
                  lo=lo, hi=hi, p_value=p, pairs=n, a_only=a_only, b_only=b_only,
                  method=f"exact McNemar on {n} pairs formed on (spec, seed), α = {alpha:g}", alpha=alpha,
                  min_effect=min_effect, runs=runs, folded=folded,
                  next_command=next_command if decision == "undecided" else None)


def next_budget(discordant: int, pairs: int, *, per_round: int, alpha: float = ALPHA,
                min_effect: float = MIN_EFFECT) -> int | None:
    """Runs (both arms) a new ``compare`` needs to detect ``min_effect`` with 80 % power, at the disagreement
    seen so far (none seen: independent runs at a 50 % pass rate, the most disagreement)."""
    psi = discordant / pairs if pairs else 0.5
    psi = max(psi, min_effect)   # an effect of δ needs at least δ disagreement
    fc = sequential.forecast(psi, min_effect, alpha, NEXT_POWER, per_round=per_round, rho=sequential.rho_for(psi))
    return 2 * fc.budget_pairs if fc.budget_pairs else None


def compare_command(a: str, b: str, max_runs: int | None, *, swarm: str | None = None,
                    suite: str | None = None) -> str | None:
    """``swarmgym compare A B --max-runs N [--swarm S] [--suite NAME]`` (None without a budget)."""
    if max_runs is None:
        return None
    parts = ["swarmgym", "compare", a, b, "--max-runs", str(max_runs)]
    if swarm:
        parts += ["--swarm", swarm]
    if suite:
        parts += ["--suite", suite]
    return shlex.join(parts)
