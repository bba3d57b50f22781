"""Did it move?  A finished campaign against its baseline, with exact tests and a controlled FDR.

:func:`assess_campaign` is the one entry point: ``bench`` (in-process) and the fleet coordinator's
finalize both call it (through :mod:`swarmgym.campaigns.finalize`) and store the result in the campaign's ledger
record (``LedgerRecord.change``).  The rule (docs/trend.md has the measured power):

- **Baseline**: pinned, else the series' campaigns since the last change (:mod:`swarmgym.trend.baseline`).
- **Overall**: for k = 1 … ``trend.windows``, the last k campaigns of the level (this one and the k−1 before
  it) against the pooled campaigns before them; Fisher's exact test of the two pass rates, or exact McNemar
  on the discordant (spec, seed) pairs when one campaign faces one campaign with the same seeds.  The
  smallest p times the number of windows tested (Bonferroni) is the overall p; across the arms finished
  the same night, Benjamini–Hochberg at ``trend.alpha``.
- **Per spec**: this campaign against the baseline, spec by spec; Benjamini–Hochberg over the night's
  arms × specs at ``trend.spec_alpha``.
- **Verdict**: ``regressed`` if the overall or any spec is a discovery going down; else ``improved`` if one
  goes up; else ``no change``; ``not comparable`` when there is no comparable baseline.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from swarmgym.config import Config, TrendConfig
from swarmgym.ledger import Ledger
from swarmgym.models import CampaignChange, ChangeTest, LedgerRecord
from swarmgym.trend import stats
from swarmgym.trend.baseline import Baseline, Night, choose, load_pins, night_of_record, night_of_runs, with_outcomes


@dataclass
class Family:
    """The p-values of the other arms' campaigns finished the same night (their verdicts stand)."""

    overall: list[float] = field(default_factory=list)
    specs: list[float] = field(default_factory=list)


def night_family(ledger: Ledger, night: Night, hours: float) -> Family:
    """Campaigns of other series or arms planned within ``hours`` of ``night`` and already assessed."""
    fam = Family()
    span = hours * 3600.0
    for rec in ledger.records_since(night.created - span, kind="campaign"):
        other = night_of_record(rec)
        if other is None or rec.change is None or other.campaign_id == night.campaign_id:
            continue
        if (other.series, other.arm) == (night.series, night.arm) or abs(other.created - night.created) > span:
            continue
        if rec.change.overall is not None:
            fam.overall.append(rec.change.overall.p)
        fam.specs += [t.p for t in rec.change.specs]
    return fam


def exact_test(spec: str, new: tuple[int, int], base: tuple[int, int], *, nights: int = 1,
               pairs: Sequence[tuple[bool, bool]] | None = None) -> ChangeTest:
    """One test: McNemar on ``pairs`` [(baseline passed, new passed)] when given, else Fisher on the counts."""
    if pairs:
        m = stats.mcnemar([(a, b) for b, a in pairs])   # A = new, B = baseline: m.b = only the new side passed
        return ChangeTest(spec=spec, test="mcnemar", nights=nights, passes=sum(a for _, a in pairs), runs=len(pairs),
                          base_passes=sum(b for b, _ in pairs), base_runs=len(pairs), b=m.c, c=m.b, p=m.p)
    return ChangeTest(spec=spec, test="fisher", nights=nights, passes=new[0], runs=new[1], base_passes=base[0],
                      base_runs=base[1], p=stats.fisher(new[0], new[1], base[0], base[1]))


def _sum(nights: Sequence[Night], specs: Sequence[str]) -> tuple[int, int]:
    p = sum(n.counts.get(s, (0, 0))[0] for n in nights for s in specs)
    r = sum(n.counts.get(s, (0, 0))[1] for n in nights for s in specs)
    return p, r


def _pairs(new: Night, base: Night, spec: str | None = None) -> list[tuple[bool, bool]]:
    """(baseline passed, new passed) per (spec, seed), when both sides ran exactly the same (spec, seed) jobs
    (the seeds match: a paired design); else [] (the runs are compared unpaired, none left out)."""
    mine = {k: v for k, v in new.outcomes.items() if spec is None or k[0] == spec}
    theirs = {k: v for k, v in base.outcomes.items() if (spec is None and k[0] in new.counts) or k[0] == spec}
    if not mine or mine.keys() != theirs.keys() or len(mine) != sum(n for s, (_, n) in new.counts.items()
                                                                   if spec is None or s == spec):
        return []
    return [(theirs[k], mine[k]) for k in sorted(mine)]


def _decide(t: ChangeTest, q: float, alpha: float) -> ChangeTest:
    moved = q <= alpha and (t.b != t.c if t.test == "mcnemar" else t.passes * t.base_runs != t.base_passes * t.runs)
    up = (t.c or 0) > (t.b or 0) if t.test == "mcnemar" else t.diff > 0
    return t.model_copy(update={"q": q, "verdict": ("improved" if up else "regressed") if moved else "no change"})


def fold_level(level: Sequence[Night]) -> tuple[list[Night], list[str]]:
    """The baseline with every campaign that ran the very units of a newer one in it (a replaying swarm,
    the same build and seeds) left out: evidence counts once.  Returns (kept, folded campaign ids)."""
    kept: list[Night] = []
    folded: list[str] = []
    for n in level:                      # newest first
        if any(k.same_units(n) for k in kept):
            folded.append(n.campaign_id)
        else:
            kept.append(n)
    return kept, folded


def assess(ledger: Ledger, night: Night, base: Baseline, trend: TrendConfig, family: Family) -> CampaignChange:
    """The change record of ``night`` against ``base`` (see the module docstring)."""
    common: dict[str, Any] = dict(arm=night.arm, series=night.series, schedule=night.schedule, build=night.build,
                                  alpha=trend.alpha, spec_alpha=trend.spec_alpha, created=night.created,
                                  hard=night.hard, counts={s: list(v) for s, v in sorted(night.counts.items())},
                                  seeds=list(night.seeds), replays=night.replays)
    if night.runs == 0:
        return CampaignChange(verdict="not comparable", reason="no run could be graded (all infra)",
                              baseline_rule="none", **common)
    if base.rule == "none":
        return CampaignChange(verdict="not comparable", reason=base.reason, baseline_rule="none", **common)
    specs = sorted(night.counts)
    level, folded = fold_level(base.level)
    twin = next((n for n in level if night.same_units(n)), None)
    if twin is not None:   # the very units of a baseline campaign, replayed: no new evidence to test
        return CampaignChange(verdict="no change", reason=f"no change: not tested, it replays {twin.campaign_id} (same "
                              f"seeds and build on a swarm that replays them: no new evidence)",
                              baseline_rule=base.rule, baseline=[n.campaign_id for n in level], folded=folded, **common)
    common["folded"] = folded
    if base.settling:
        previous = None
        if base.previous is not None:
            prev = with_outcomes(ledger, base.previous)
            previous = exact_test("*", _sum([night], specs), _sum([prev], specs), pairs=_pairs(night, prev) or None)
        return CampaignChange(verdict="no change", reason=f"no change: not tested, {base.settling}",
                              baseline_rule="pooled", baseline=[n.campaign_id for n in level], previous=previous,
                              **common)
    paired_base = with_outcomes(ledger, level[0]) if len(level) == 1 else None
    windows: list[ChangeTest] = []
    for k in range(1, (1 if base.rule == "pinned" else trend.windows) + 1):
        new_side, pool = [night, *level[:k - 1]], level[k - 1:]
        if len(new_side) < k or not pool:
            break
        pairs = _pairs(night, paired_base) if k == 1 and paired_base is not None else None
        t = exact_test("*", _sum(new_side, specs), _sum(pool, specs), nights=k, pairs=pairs)
        if t.base_runs:
            windows.append(t)
    previous = None
    if base.previous is not None:
        prev = with_outcomes(ledger, base.previous)
        previous = exact_test("*", _sum([night], specs), _sum([prev], specs), pairs=_pairs(night, prev) or None)
        previous = _decide(previous, previous.p, trend.alpha).model_copy(update={"q": None})  # unadjusted: a hint
    if not windows:
        return CampaignChange(verdict="not comparable", reason="the baseline has no run of this campaign's specs",
                              baseline_rule=base.rule, baseline=[n.campaign_id for n in level], previous=previous,
                              **common)
    best = min(windows, key=lambda t: t.p)
    overall = best.model_copy(update={"p": min(1.0, best.p * len(windows))})
    spec_tests = []
    for s in specs:
        pool = level if base.rule == "pinned" else level[:trend.pool]
        t = exact_test(s, night.counts[s], _sum(pool, [s]),
                       pairs=_pairs(night, paired_base, s) if paired_base is not None else None)
        if t.base_runs:
            spec_tests.append(t)
    q_overall = stats.bh([overall.p, *family.overall])[0]
    q_specs = stats.bh([t.p for t in spec_tests] + family.specs)[:len(spec_tests)]
    overall = _decide(overall, q_overall, trend.alpha)
    spec_tests = [_decide(t, q, trend.spec_alpha) for t, q in zip(spec_tests, q_specs)]
    verdicts = [overall.verdict, *(t.verdict for t in spec_tests)]
    verdict = "regressed" if "regressed" in verdicts else "improved" if "improved" in verdicts else "no change"
    change = CampaignChange(verdict=verdict, reason="", baseline_rule=base.rule,
                            baseline=[n.campaign_id for n in level], overall=overall, windows=windows,
                            specs=spec_tests, previous=previous, family=len(spec_tests) + len(family.specs),
                            baseline_builds=list(dict.fromkeys(n.build for n in level if n.build)), **common)
    change.reason = reason(change)
    return change


def assess_campaign(cfg: Config, ledger: Ledger, campaign_id: str, recs: Sequence[LedgerRecord], *,
                    created: float, schedule: str | None = None, hard: bool | None = None) -> CampaignChange:
    """Compare a finished campaign (its session records ``recs``) with its baseline: the one function both
    finalize paths call."""
    night = night_of_runs(campaign_id, recs, created=created, schedule=schedule, hard=hard)
    variant = next((r.variant for r in recs), "")
    base = choose(ledger, night, variant, pool=cfg.trend.pool, pins=load_pins(cfg.ledger_dir), settle=cfg.trend.settle)
    return assess(ledger, night, base, cfg.trend, night_family(ledger, night, cfg.trend.night_hours))


# --- words ------------------------------------------------------------------------------------

def pct(x: float) -> str:
    return "–" if math.isnan(x) else f"{100 * x:.0f}%"


def test_text(t: ChangeTest) -> str:
    """``18/30 = 60% vs 176/210 = 84% (−24 pp; Fisher p = 0.002, q = 0.002)``."""
    how = (f"McNemar {t.b}/{t.c} discordant" if t.test == "mcnemar" else "Fisher") + f" p = {t.p:.3g}"
    if t.q is not None:
        how += f", q = {t.q:.3g}"
    nights = f" over the last {t.nights} campaigns" if t.nights > 1 else ""
    return (f"{t.passes}/{t.runs} = {pct(t.rate)}{nights} vs {t.base_passes}/{t.base_runs} = {pct(t.base_rate)} "
            f"({100 * t.diff:+.0f} pp; {how})")


def reason(ch: CampaignChange) -> str:
    if ch.overall is None:
        return ch.reason
    n = len(ch.baseline) - (ch.overall.nights - 1)   # the pool the deciding window was tested against
    base = "the pinned baseline" if ch.baseline_rule == "pinned" else f"{n} earlier campaign{'s' * (n != 1)}"
    moved = [t for t in ch.specs if t.verdict != "no change"]
    line = f"{ch.verdict}: {test_text(ch.overall)} against {base}"
    if moved:
        line += "; " + ", ".join(f"{t.spec} {t.verdict} {100 * t.diff:+.0f} pp (q = {t.q:.3g})" for t in moved)
    return line


def line(ch: CampaignChange | None) -> str:
    """One line for ``status``, ``report`` and ``bench``."""
    if ch is None:
        return "change: not assessed"
    build = f" · build {ch.build}" if ch.build else ""
    return f"change: {ch.reason}{build}"


def summary(rec: LedgerRecord, cfg: Config | None = None) -> dict[str, Any]:
    """The change summary an ``on_change`` command reads on stdin (one JSON object)."""
    ch = rec.change
    out: dict[str, Any] = {"campaign_id": rec.campaign_id, "variant": rec.variant, "tier": rec.tier,
                           "suite": rec.suite, "suite_hash": rec.suite_hash}
    if ch is not None:
        out.update(verdict=ch.verdict, reason=ch.reason, arm=ch.arm, schedule=ch.schedule, build=ch.build,
                   baseline=ch.baseline, baseline_rule=ch.baseline_rule, baseline_builds=ch.baseline_builds,
                   overall=_test_json(ch.overall), previous=_test_json(ch.previous),
                   specs=[_test_json(t) for t in ch.specs])
    if cfg is not None:
        out["report"] = str(cfg.runs_dir / "BENCHMARK.html")
    out["status_command"] = f"swarmgym status {rec.campaign_id}"
    return out


def _test_json(t: ChangeTest | None) -> dict[str, Any] | None:
    if t is None:
        return None
    d = t.model_dump(mode="json")
    d.update(rate=None if math.isnan(t.rate) else round(t.rate, 4),
             base_rate=None if math.isnan(t.base_rate) else round(t.base_rate, 4),
             diff=None if math.isnan(t.diff) else round(t.diff, 4))
    return d
