"""runs/BENCHMARK.md: per variant x suite hash results and same-hash head-to-heads."""
from __future__ import annotations

import math
import time

from swarmgym.reports.bench import NO_HASH, BenchData, Failures, Group, HeadToHead
from swarmgym.trend import stats
from swarmgym.trend.answer import pp
from swarmgym.trend.arms import flags_label
from swarmgym.trust.textsafe import shown

WHY_NOT_PAIRED = (
    "A suite hash covers the frozen prompts and golden checks. Different hashes mean the two runs "
    "were graded against **different rulers** (an edited prompt or check), so any difference could "
    "come from the suite edit rather than from the variant. swarmgym therefore never pairs runs "
    "across suite hashes. Re-run both variants on the same suite to compare them.")


def md(value) -> str:
    """A recorded value in a Markdown line or table cell: :func:`swarmgym.trust.textsafe.shown` (no escape
    sequence, control characters visible) and ``|`` escaped so it cannot open a table column."""
    return shown(value, markup=False).replace("|", "\\|")


def pct(x: float) -> str:
    return "–" if x is None or math.isnan(x) else f"{100 * x:.1f} %"


def secs(x: float) -> str:
    return "–" if x is None or math.isnan(x) else f"{x:.1f}"


def pval(p: float) -> str:
    return "–" if math.isnan(p) else (f"{p:.4f}" if p >= 0.0001 else f"{p:.1e}")


def ci(passes: int, n: int) -> str:
    lo, hi = stats.wilson(passes, n)
    return "–" if math.isnan(lo) else f"{100 * lo:.1f}–{100 * hi:.1f} %"


def _overall(counter) -> str:
    return " · ".join(f"{k} {counter.get(k, 0)}" for k in ("pass", "partial", "fail", "error"))


def render(data: BenchData, now: float | None = None) -> str:
    out: list[str] = ["# Benchmark results", ""]
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(now or time.time()))
    out += [f"Regenerated from the ledger at {stamp}: {len(data.rows)} benchmark runs in "
            f"{len(data.groups)} arm × suite-hash group(s). Pass = the golden checks passed "
            "(`functional`); intervals are Wilson 95 %. An arm is variant (adapter) [flags]: simulated "
            "and real runs are never pooled or compared.", ""]
    if not data.rows:
        return "\n".join(out + ["_No benchmark runs in the ledger yet: run `swarmgym bench` first._", ""])
    if data.mixed_hashes or data.unpaired or NO_HASH in data.hashes:
        out += _loud_warning(data)
    out += ["## Summary", "", "| variant | suite hash | runs | passes | pass rate | Wilson 95 % | wall median (s) |",
            "|---|---|---:|---:|---:|---|---:|"]
    for g in data.groups:
        w = stats.wall_stats(g.walls)
        out.append(f"| {md(g.variant)} | `{md(g.suite_hash)}` | {g.runs} | {g.passes} | {pct(g.passes / g.runs)} | "
                   f"{ci(g.passes, g.runs)} | {secs(w.median)} |")
    out.append("")
    out += _infra(data)
    out += ["## Head-to-head", ""]
    if not data.head_to_head:
        out += ["_No two variants share a suite hash yet: nothing to compare._", ""]
    for h in data.head_to_head:
        out += _head_to_head(h)
    for u in data.unpaired:
        out += [f"### ⚠️ NOT COMPARED: {md(u.a)} vs {md(u.b)}", "",
                f"**{md(u.a)}** ran on suite hash(es) {', '.join(f'`{md(x)}`' for x in u.hashes_a)}; "
                f"**{md(u.b)}** ran on {', '.join(f'`{md(x)}`' for x in u.hashes_b)}. {WHY_NOT_PAIRED}", ""]
    out += ["## Per variant × suite hash", ""]
    for g in data.groups:
        out += _group(g)
    return "\n".join(out)


def _infra(data: BenchData) -> list[str]:
    if not data.infra:
        return []
    out = ["## Could not run (infra)", "",
           f"{len(data.infra)} run(s) never reached their swarm (binary missing, preflight failed, suite "
           "mismatch). They count in no pass rate; `swarmgym ledger show <session>` gives each reason.", "",
           "| arm | runs that could not run |", "|---|---:|"]
    out += [f"| {md(a)} | {n} |" for a, n in sorted(data.infra_by_arm.items())]
    return out + [""]


def _loud_warning(data: BenchData) -> list[str]:
    lines = ["> ## ⚠️ WARNING: RUNS ON DIFFERENT SUITE HASHES ARE NEVER PAIRED", ">"]
    for h, variants in sorted(data.hashes.items()):
        label = "no suite hash recorded (never paired)" if h == NO_HASH else f"suite hash `{md(h)}`"
        lines.append(f"> - {label}: {md(', '.join(variants))}")
    lines += [">", f"> {WHY_NOT_PAIRED}"]
    for u in data.unpaired:
        lines.append(f"> - **{md(u.a)} vs {md(u.b)}: NOT COMPARED** (no shared suite hash).")
    return lines + [""]


def _head_to_head(h: HeadToHead) -> list[str]:
    a, b = md(h.a.variant), md(h.b.variant)
    ans = h.answer
    out = [f"### {a} vs {b} (suite hash `{md(h.a.suite_hash)}`)", "",
           f"**Answer ({b} − {a}): {md(ans.verdict)}** — {pp(ans.effect)} [{pp(ans.lo)}, {pp(ans.hi)}], "
           f"p = {pval(ans.p_value)} ({md(ans.method)})"
           + (f"; {ans.folded} repeated run(s) of a replaying swarm folded" if ans.folded else ""), ""]
    if ans.next_command:
        out += [f"Next step: `{md(ans.next_command)}`", ""]
    out += [f"| spec | {a} pass rate (runs) | {b} pass rate (runs) | Δ ({b} − {a}) |", "|---|---:|---:|---:|"]
    for d in h.shared:
        out.append(f"| {md(d.spec)} | {pct(d.a.rate)} ({d.a.runs}) | {pct(d.b.rate)} ({d.b.runs}) | "
                   f"{100 * d.diff:+.1f} pp |")
    out.append("")
    se = "–" if math.isnan(h.se) else f"{100 * h.se:.1f}"
    mean = "–" if math.isnan(h.mean) else f"{100 * h.mean:+.1f}"
    s, m = h.sign, h.mcnemar
    out += [f"- **Mean per-spec difference** ({b} − {a}): {mean} pp ± {se} pp (SE over {len(h.shared)} specs)",
            f"- **Sign test over specs** (exact, two-sided): {b} better on {s.positive}, {a} better on "
            f"{s.negative}, tied {s.ties} → p = {pval(s.p)}",
            f"- **McNemar** (exact, on {m.pairs} pairs formed on (spec, seed)): {m.b} only {a} passed, "
            f"{m.c} only {b} passed → p = {pval(m.p)}"]
    if h.pass_at:
        out.append("- **pass@k** (unbiased, mean over specs): " + "; ".join(
            f"pass@{k}: {a} {pct(pa)} vs {b} {pct(pb)}" for k, (pa, pb) in sorted(h.pass_at.items())))
    if len(h.shared) < 6:
        floor = stats.sign_test([1.0] * len(h.shared)).p if h.shared else 1.0
        out.append(f"- Note: with {len(h.shared)} spec(s) the smallest possible sign-test p is {pval(floor)}; "
                   "the spec is the independent unit, reps sit inside specs.")
    for name, only in ((a, h.only_a), (b, h.only_b)):
        if only:
            out.append(f"- Specs only {name} ran (left out of the comparison): {md(', '.join(only))}")
    if h.failures:
        out += ["", f"Why runs failed, {b} against {a} (share of each arm's runs; Δ = {b} − {a}, Newcombe 95 %):", "",
                f"| class | {a} | {b} | Δ ({b} − {a}) |", "|---|---:|---:|---|"]
        for c in h.failures:
            out.append(f"| {md(c.kind)} | {c.a}/{c.a_runs} | {c.b}/{c.b_runs} | {pp(c.diff)} [{pp(c.lo)}, {pp(c.hi)}] |")
    return out + [""]


def failures_line(f: Failures, top: int = 5) -> str:
    """``liar 5 · crash 2 · ok 23; failing requirements: R-total ×4, …; starved: mlx-mini ×2``."""
    kinds = " · ".join(f"{md(k)} {n}" for k, n in f.kinds.most_common())
    reqs = ", ".join(f"{md(r)} ×{n}" for r, n in f.requirements.most_common(top)) or "none"
    starved = ", ".join(f"{md(d)} ×{n}" for d, n in f.starved.most_common()) or "none"
    return f"{kinds}; failing requirements: {reqs}; devices that got no task: {starved}"


def _group(g: Group) -> list[str]:
    w = stats.wall_stats(g.walls)
    suites = md(", ".join(sorted(g.suites))) or "?"
    out = [f"### {md(g.variant)} · suite {suites} · hash `{md(g.suite_hash)}`", "",
           f"- Runs: {g.runs} in {len(g.campaigns)} campaign(s); tiers: "
           + ", ".join(f"{md(t)} ×{n}" for t, n in sorted(g.tiers.items(), key=lambda kv: str(kv[0]))),
           f"- Pass rate: {g.passes}/{g.runs} = {pct(g.passes / g.runs)} (Wilson 95 % {ci(g.passes, g.runs)})",
           f"- Overall verdicts: {_overall(g.overall)}",
           f"- Why runs failed: {failures_line(g.failures)}"
           + (f" ({g.folded} repeated run(s) of a replaying swarm folded: each unit counts once)" if g.folded else ""),
           f"- Wall time (s): median {secs(w.median)}, mean {secs(w.mean)}, p90 {secs(w.p90)}, "
           f"stdev {secs(w.stdev)}, min {secs(w.min)}, max {secs(w.max)}",
           "- Flags in effect: " + "; ".join(f"{md(flags_label(f))} ×{n}" for f, n in g.flags.most_common()), "",
           "| spec | app | runs | passes | pass rate | Wilson 95 % | wall median (s) | wall p90 (s) | overall |",
           "|---|---|---:|---:|---:|---|---:|---:|---|"]
    for s in sorted(g.specs.values(), key=lambda s: s.spec):
        ws = stats.wall_stats(s.walls)
        out.append(f"| {md(s.spec)} | {md(s.app_slug)} | {s.runs} | {s.passes} | {pct(s.rate)} | {ci(s.passes, s.runs)} | "
                   f"{secs(ws.median)} | {secs(ws.p90)} | {_overall(s.overall)} |")
    return out + [""]
