"""``runs/BENCHMARK.html``: the head-to-head of arms in pictures (inline SVG, no external assets).

All rebuilt from the ledger, top to bottom:

0. one legend: what ``functional`` and ``overall`` mean and why they differ in these runs (:mod:`.spec_table`);
1. pass rate per arm with Wilson 95 % error bars (per suite hash); the per-spec table (each arm's pass rate
   and interval, every run a mark linked to its ``<session_id>/report.html``, :mod:`.spec_table`); each arm
   over time (:mod:`.trend_html`: its campaigns with their build labels and change markers, or run by run
   while it has fewer than three campaigns);
2. each same-hash head-to-head's answer (:mod:`.answer_view`: the second arm minus the first, its
   interval and decision, the next step) and its per-spec pass-rate differences B − A as a forest plot
   with Newcombe 95 % intervals, plus the mean difference ± 1.96 SE over specs; green where B is better;
   and how the two arms' failure classes differ;
3. why each arm's runs failed: the share of runs per failure class, the top failing requirements, the
   devices that got no task;
4. how each arm's tasks were dispatched over the fleet's devices (share of tasks per device);
5. a fleet timeline: each job as a bar on its host's lane, from start (finish − wall time) to finish,
   linked to its report; then the most recent runs, one row each.

Label columns are as wide as their longest label: no arm, host or build label is cut (checked in headless
Chromium at 1280 and 800 px, tests/reports/test_spec_table.py).
``swarmgym report --compare ARM ARM`` renders the same page for two arms only.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from markupsafe import Markup, escape

from swarmgym.models import LedgerRecord
from swarmgym.reports import bench, spec_table
from swarmgym.reports.answer_view import LEGEND, answer_html, class_diff_table, classes_svg
from swarmgym.reports.charts import label_width
from swarmgym.reports.trend_html import section
from swarmgym.trend import series as trend
from swarmgym.trend import stats
from swarmgym.trend.answer import TONE_COLORS
from swarmgym.trend.arms import arm_of

OVERALL_COLORS = {"pass": "#2e7d32", "partial": "#f9a825", "fail": "#c62828", "error": "#6a1b9a"}
PALETTE = ["#1565c0", "#ef6c00", "#2e7d32", "#6a1b9a", "#00838f", "#ad1457", "#5d4037", "#9e9d24", "#546e7a"]
TIMELINE_MAX = 400  # the most recent jobs shown on the fleet timeline
LABEL_W, PLOT_W = 260, 520


@dataclass
class ArmExtra:
    """What BENCHMARK.md does not need but the pictures do: tasks per device, jobs on the timeline."""

    per_device: dict[str, int] = field(default_factory=dict)
    jobs: list[LedgerRecord] = field(default_factory=list)


def extras(records: Iterable[LedgerRecord]) -> dict[str, ArmExtra]:
    out: dict[str, ArmExtra] = {}
    for rec in records:
        x = out.setdefault(arm_of(rec), ArmExtra())
        for dev, n in (rec.per_device or {}).items():
            x.per_device[dev] = x.per_device.get(dev, 0) + int(n)
        x.jobs.append(rec)
    return out


def newcombe(b: bench.SpecStats, a: bench.SpecStats) -> tuple[float, float]:
    """95 % interval of ``rate(b) - rate(a)`` (Newcombe's hybrid score method from Wilson intervals)."""
    return stats.newcombe(b.passes, b.runs, a.passes, a.runs)


# --- SVG pieces --------------------------------------------------------------------------------

def _svg(width: int, height: int, label: str, body: list[str]) -> Markup:
    return Markup(f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                  f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}">' + "".join(body) + "</svg>")


def _axis(x0: float, x1: float, y: float, ticks: Sequence[tuple[float, str]], height: float) -> list[str]:
    out = [f'<line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="#90a4ae"/>']
    for pos, text in ticks:
        out.append(f'<line x1="{pos:.1f}" y1="{y - height}" x2="{pos:.1f}" y2="{y}" stroke="#eceff1"/>'
                   f'<text x="{pos:.1f}" y="{y + 14}" font-size="11" text-anchor="middle" fill="#455a64">'
                   f'{escape(text)}</text>')
    return out


def pass_rate_svg(groups: Sequence[bench.Group]) -> Markup:
    """One row per arm: the pass rate as a dot, its Wilson 95 % interval as a bar."""
    if not groups:
        return Markup("")
    row, top = 30, 12
    lw = _label_w(g.variant for g in groups)
    h = top + row * len(groups) + 30
    x = lambda v: lw + PLOT_W * v  # noqa: E731
    body = _axis(lw, lw + PLOT_W, top + row * len(groups) + 4,
                 [(x(v / 100), f"{v}%") for v in range(0, 101, 20)], row * len(groups))
    for n, g in enumerate(groups):
        y = top + n * row + row / 2
        lo, hi = stats.wilson(g.passes, g.runs)
        rate = g.passes / g.runs if g.runs else math.nan
        color = PALETTE[n % len(PALETTE)]
        tip = (f"{g.variant}: {g.passes}/{g.runs} pass = {100 * rate:.0f}% "
               f"(Wilson 95% {100 * lo:.0f}–{100 * hi:.0f}%) on {g.suite_hash}") if g.runs else f"{g.variant}: no runs"
        body.append(f'<g class="arm" data-arm="{escape(g.variant)}"><title>{escape(tip)}</title>'
                    f'<text x="{lw - 8}" y="{y + 4}" font-size="12" text-anchor="end">{escape(g.variant)}</text>')
        if g.runs:
            body.append(f'<line x1="{x(lo):.1f}" y1="{y}" x2="{x(hi):.1f}" y2="{y}" stroke="{color}" stroke-width="3"/>'
                        f'<line x1="{x(lo):.1f}" y1="{y - 6}" x2="{x(lo):.1f}" y2="{y + 6}" stroke="{color}" stroke-width="2"/>'
                        f'<line x1="{x(hi):.1f}" y1="{y - 6}" x2="{x(hi):.1f}" y2="{y + 6}" stroke="{color}" stroke-width="2"/>'
                        f'<circle cx="{x(rate):.1f}" cy="{y}" r="5" fill="{color}"/>'
                        f'<text x="{lw + PLOT_W + 8}" y="{y + 4}" font-size="11">{g.passes}/{g.runs} '
                        f'({100 * rate:.0f}%)</text>')
        body.append("</g>")
    return _svg(lw + PLOT_W + 90, int(h), "pass rate per arm with Wilson 95% intervals", body)


def forest_svg(h2h: bench.HeadToHead) -> Markup:
    """Per-spec difference B − A (the second arm minus the first) with its 95 % interval, green where B is
    better and red where it is worse; the last row is the mean over specs ± 1.96 SE."""
    rows: list[tuple[str, float, float, float, str]] = []
    for d in h2h.shared:
        lo, hi = newcombe(d.b, d.a)
        rows.append((d.spec, d.diff, lo, hi, f"{d.spec}: B {d.b.passes}/{d.b.runs} vs A {d.a.passes}/{d.a.runs}, "
                                             f"B − A {100 * d.diff:+.0f} pp (95% {100 * lo:+.0f} … {100 * hi:+.0f})"))
    if not rows:
        return Markup("")
    se = 0.0 if math.isnan(h2h.se) else 1.96 * h2h.se
    rows.append(("mean over specs", h2h.mean, h2h.mean - se, h2h.mean + se,
                 f"mean B − A {100 * h2h.mean:+.1f} pp ± {100 * se:.1f} (1.96 SE over {len(h2h.shared)} specs)"))
    row, top = 26, 12
    h = top + row * len(rows) + 34
    x = lambda v: LABEL_W + PLOT_W * (max(-1.0, min(1.0, v)) + 1) / 2  # noqa: E731
    body = _axis(LABEL_W, LABEL_W + PLOT_W, top + row * len(rows) + 4,
                 [(x(v / 100), f"{v:+d} pp" if v else "0") for v in range(-100, 101, 25)], row * len(rows))
    body.append(f'<line x1="{x(0):.1f}" y1="{top}" x2="{x(0):.1f}" y2="{top + row * len(rows)}" '
                f'stroke="#37474f" stroke-dasharray="4 3"/>')
    for n, (label, diff, lo, hi, tip) in enumerate(rows):
        y = top + n * row + row / 2
        mean_row = n == len(rows) - 1
        weight = ' font-weight="bold"' if mean_row else ""
        tone = "better" if lo > 0 else "worse" if hi < 0 else "neutral"
        color = "#37474f" if mean_row else TONE_COLORS[tone]
        body.append(f'<g class="spec-diff" data-spec="{escape(label)}" data-tone="{tone}"><title>{escape(tip)}</title>'
                    f'<text x="{LABEL_W - 8}" y="{y + 4}" font-size="12" text-anchor="end"'
                    f'{weight}>{escape(label)}</text>')
        if not math.isnan(diff):
            mark = (f'<polygon points="{x(diff) - 7:.1f},{y} {x(diff):.1f},{y - 7} {x(diff) + 7:.1f},{y} {x(diff):.1f},{y + 7}" '
                    f'fill="{color}"/>' if mean_row else f'<rect x="{x(diff) - 5:.1f}" y="{y - 5}" width="10" height="10" fill="{color}"/>')
            body.append(f'<line x1="{x(lo):.1f}" y1="{y}" x2="{x(hi):.1f}" y2="{y}" stroke="{color}" stroke-width="2.5"/>'
                        + mark + f'<text x="{LABEL_W + PLOT_W + 8}" y="{y + 4}" font-size="11">{100 * diff:+.0f} pp</text>')
        body.append("</g>")
    body.append(f'<text x="{LABEL_W}" y="{h - 5}" font-size="11" fill="{TONE_COLORS["worse"]}">← A '
                f'{escape(_short(h2h.a.variant))} better</text><text x="{LABEL_W + PLOT_W}" y="{h - 5}" font-size="11" '
                f'fill="{TONE_COLORS["better"]}" text-anchor="end">B {escape(_short(h2h.b.variant))} better →</text>')
    return _svg(LABEL_W + PLOT_W + 80, int(h), f"per-spec pass-rate difference {h2h.b.variant} minus {h2h.a.variant}", body)


def dispatch_svg(arms: Sequence[str], extra: dict[str, ArmExtra]) -> Markup:
    """One stacked bar per arm: the share of its tasks each device ran."""
    devices = sorted({d for a in arms for d in extra.get(a, ArmExtra()).per_device})
    if not devices:
        return Markup("")
    color = {d: PALETTE[i % len(PALETTE)] for i, d in enumerate(devices)}
    row, top = 30, 34
    lw = _label_w(arms)
    h = top + row * len(arms) + 8
    body = []
    lx = 0
    for d in devices:  # legend
        body.append(f'<rect x="{lx}" y="6" width="10" height="10" fill="{color[d]}"/>'
                    f'<text x="{lx + 14}" y="15" font-size="11">{escape(d)}</text>')
        lx += 24 + 7 * len(d)
    for n, a in enumerate(arms):
        y = top + n * row
        per = extra.get(a, ArmExtra()).per_device
        total = sum(per.values())
        body.append(f'<g class="dispatch" data-arm="{escape(a)}">'
                    f'<text x="{lw - 8}" y="{y + 15}" font-size="12" text-anchor="end">{escape(a)}</text>'
                    f'<rect x="{lw}" y="{y + 3}" width="{PLOT_W}" height="18" fill="#eceff1"/>')
        x0 = float(lw)
        for d in devices:
            k = per.get(d, 0)
            if not total or not k:
                continue
            w = PLOT_W * k / total
            body.append(f'<rect x="{x0:.1f}" y="{y + 3}" width="{w:.1f}" height="18" fill="{color[d]}">'
                        f'<title>{escape(a)} · {escape(d)}: {k} of {total} tasks ({100 * k / total:.0f}%)</title></rect>')
            if w > 34:
                body.append(f'<text x="{x0 + w / 2:.1f}" y="{y + 16}" font-size="10" fill="#fff" '
                            f'text-anchor="middle">{100 * k / total:.0f}%</text>')
            x0 += w
        body.append(f'<text x="{lw + PLOT_W + 8}" y="{y + 16}" font-size="11">{total} tasks</text></g>')
    return _svg(max(lw + PLOT_W + 80, lx), int(h), "tasks per device, share per arm", body)


def _pack(recs: Sequence[LedgerRecord]) -> dict[str, list[list[LedgerRecord]]]:
    """Per host, jobs in rows so that no two jobs in a row overlap (concurrent jobs stack up)."""
    out: dict[str, list[list[LedgerRecord]]] = {}
    for r in sorted(recs, key=lambda r: r.ts - (r.wall_secs or 0)):
        rows = out.setdefault(r.host or "?", [])
        start = r.ts - (r.wall_secs or 0)
        for row in rows:
            if row[-1].ts <= start + 1e-6:
                row.append(r)
                break
        else:
            rows.append([r])
    return dict(sorted(out.items()))


def timeline_svg(records: Sequence[LedgerRecord], has_report: Callable[[str], bool] = lambda sid: True) -> Markup:
    """Jobs as bars on one lane per host (a sub-row per concurrent job), from start (finish − wall) to
    finish; colour = overall; each bar links to its run's report.html."""
    recs = [r for r in records if r.ts][-TIMELINE_MAX:]
    if not recs:
        return Markup("")
    lanes = _pack(recs)
    lw = _label_w(f"{host} ({sum(len(r) for r in rows)} jobs)" for host, rows in lanes.items())
    t0 = min(r.ts - (r.wall_secs or 0) for r in recs)
    span = max(max(r.ts for r in recs) - t0, 1e-3)
    sub, gap, top = 16, 10, 26
    n_rows = sum(len(rows) for rows in lanes.values())
    plot_h = sub * n_rows + gap * len(lanes)
    h = top + plot_h + 30
    x = lambda t: lw + PLOT_W * (t - t0) / span  # noqa: E731
    unit, div = ("s", 1.0) if span < 180 else ("min", 60.0) if span < 3 * 3600 else ("h", 3600.0)
    ticks = [(x(t0 + span * k / 5), f"{span * k / 5 / div:.0f} {unit}" if span / div >= 5 else
              f"{span * k / 5 / div:.1f} {unit}") for k in range(6)]
    body = _axis(lw, lw + PLOT_W, top + plot_h + 4, ticks, plot_h)
    lx = lw
    for name, c in OVERALL_COLORS.items():
        body.append(f'<rect x="{lx}" y="6" width="10" height="10" fill="{c}"/>'
                    f'<text x="{lx + 14}" y="15" font-size="11">{name}</text>')
        lx += 70
    body.append(f'<text x="{lw + PLOT_W}" y="15" font-size="11" text-anchor="end" fill="#455a64">t = 0 at '
                f'{time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t0))} UTC</text>')
    y = top
    for host, rows in lanes.items():
        body.append(f'<g class="host" data-host="{escape(host)}"><text x="{lw - 8}" '
                    f'y="{y + len(rows) * sub / 2 + 4:.1f}" font-size="12" text-anchor="end">{escape(host)} '
                    f'({sum(len(r) for r in rows)} jobs)</text>')
        for row in rows:
            for r in row:
                start = r.ts - (r.wall_secs or 0)
                w = max(x(r.ts) - x(start), 1.5)
                tip = f"{r.job_id} · {r.spec} · {arm_of(r)} · {r.overall} · {r.wall_secs:.1f}s on {host}"
                bar = (f'<rect class="job" x="{x(start):.1f}" y="{y + 1}" width="{w:.1f}" height="{sub - 2}" '
                       f'fill="{OVERALL_COLORS.get(r.overall, "#90a4ae")}" stroke="#fff" stroke-width="0.5">'
                       f'<title>{escape(tip)}</title></rect>')
                body.append(f'<a href="{escape(r.session_id)}/report.html">{bar}</a>' if has_report(r.session_id)
                            else bar)
            y += sub
        body.append("</g>")
        y += gap
    return _svg(lw + PLOT_W + 40, int(h), "fleet timeline: jobs per host over time", body)


def _label_w(labels: Iterable[str], char_px: float = 8.0) -> int:
    """Width of a chart's label column: :func:`swarmgym.reports.charts.label_width` (none is cut)."""
    return label_width(labels, char_px, LABEL_W)


def failures_section(groups: Sequence[bench.Group]) -> Markup:
    """Why each arm's runs failed: classes per arm, then each arm's top failing requirements and starved devices."""
    out = ["<h2>Why runs failed</h2><p class=\"note\">Each run's one failure class, decided from its evidence when "
           "it was graded (docs/compare.md): liar (the swarm claimed success, checks fail), narrator, stub, crash, "
           "hang, starved device, infrastructure. Requirements: those the failing golden checks cover.</p>",
           classes_svg([(g.variant, g.failures.kinds) for g in groups])]
    rows = []
    for g in groups:
        f = g.failures
        reqs = ", ".join(f"{r} ×{n}" for r, n in f.requirements.most_common(5)) or "–"
        starved = ", ".join(f"{d} {n}/{f.runs}" for d, n in f.starved.most_common()) or "–"
        rows.append(f"<tr class=\"arm-failures\" data-arm=\"{escape(g.variant)}\"><td>{escape(g.variant)}</td>"
                    f"<td>{escape(reqs)}</td><td>{escape(starved)}</td><td>{g.folded}</td></tr>")
    out.append("<table><tr><th>arm</th><th>top failing requirements (runs)</th><th>devices that got no task (runs)</th>"
               "<th>repeated runs folded</th></tr>" + "".join(rows) + "</table>")
    return Markup("".join(out))


def _short(label: str, n: int = 38) -> str:
    return label if len(label) <= n else label[: n - 1] + "…"


# --- the page ----------------------------------------------------------------------------------

CSS = """body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1000px;
color:#263238;padding:0 16px}h1{font-size:22px}h2{font-size:17px;margin-top:32px;border-bottom:1px solid #cfd8dc}
h3{font-size:14px;margin:18px 0 6px}p.note{color:#546e7a;font-size:13px}table{border-collapse:collapse;font-size:13px}
td,th{padding:3px 10px;border-bottom:1px solid #eceff1;text-align:left}.warn{color:#b71c1c;font-weight:bold}
svg.chart{display:block;margin:6px 0 14px;max-width:100%;height:auto}"""


def head_to_heads(data: bench.BenchData, arms: Sequence[str] | None = None) -> list[bench.HeadToHead]:
    """The head-to-heads to show: all, or those of ``arms`` with the second named arm as B (B − A)."""
    if arms is None:
        return list(data.head_to_head)
    out = []
    for h in data.head_to_head:
        if {h.a.variant, h.b.variant} <= set(arms):
            out.append(h if h.a.variant == arms[0] else bench.compare(h.b, h.a))
    return out


def render(data: bench.BenchData, records: Sequence[LedgerRecord], *, arms: Sequence[str] | None = None,
           title: str = "swarmgym benchmark", campaigns: Sequence[LedgerRecord] = (),
           has_report: Callable[[str], bool] = lambda sid: True) -> str:
    """The whole page; ``arms`` limits it to those arms (``report --compare``); ``campaigns`` (the campaign
    records) put the change verdicts on the "over time" charts; a run whose ``has_report(session_id)`` is
    true is linked to its ``<session_id>/report.html`` (the page lives in ``runs/``)."""
    groups = [g for g in data.groups if arms is None or g.variant in arms]
    h2h = head_to_heads(data, arms)
    recs = [r for r in records if arms is None or arm_of(r) in arms]
    extra = extras(recs)
    shown_arms = list(dict.fromkeys(g.variant for g in groups))
    out = [f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
           f"<style>{CSS}{spec_table.CSS}</style></head><body><h1>{escape(title)}</h1>",
           f"<p class=\"note\">{sum(g.runs for g in groups)} benchmark runs, {len(shown_arms)} arm(s), generated "
           f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC from the ledger. An arm is a variant plus the "
           "swarm flags in effect. Hover any mark for its numbers.</p>"]
    if not groups:
        out.append("<p>No benchmark runs in the ledger yet: run <code>swarmgym bench</code>.</p></body></html>")
        return "".join(out)
    kept_sids = {r[bench.IDX["session_id"]] for r in data.kept}
    counted = [r for r in recs if r.session_id in kept_sids]   # pooled views: repeats of a replaying swarm folded
    out.append(spec_table.legend(counted))
    out.append("<h2>Pass rate per arm</h2><p class=\"note\">Dot: share of runs whose golden checks all passed; "
               "bar: Wilson 95 % interval.</p>")
    for suite_hash in dict.fromkeys(g.suite_hash for g in groups):
        same = [g for g in groups if g.suite_hash == suite_hash]
        suites = ", ".join(sorted({s for g in same for s in g.suites})) or "?"
        out.append(f"<h3>suite {escape(suites)} · hash <code>{escape(suite_hash)}</code></h3>{pass_rate_svg(same)}")

    out.append(spec_table.per_spec(counted, has_report))
    out.append(section(trend.build(recs, campaigns), spec_table.by_arm(recs), has_report))
    if len(data.hashes) > 1 and arms is None:
        out.append(f"<p class=\"warn\">Runs on {len(data.hashes)} different suite hashes: arms are only compared "
                   "on the same hash.</p>")
    out.append(f"<h2>Head-to-head</h2><p class=\"note\">{escape(LEGEND)}</p>")
    if not h2h:
        out.append("<p class=\"note\">No two arms ran on the same suite hash: nothing to compare.</p>")
    for h in h2h:
        se = "–" if math.isnan(h.se) else f"{100 * h.se:.1f}"
        mean = "–" if math.isnan(h.mean) else f"{100 * h.mean:+.1f}"
        out.append(f"<h3 class=\"h2h\">A {escape(h.a.variant)} vs B {escape(h.b.variant)} · hash "
                   f"<code>{escape(h.a.suite_hash)}</code></h3>{answer_html(h.answer)}"
                   f"<p class=\"note\">Per spec: pass-rate difference B − A with a Newcombe 95 % interval; last row: "
                   f"mean over specs {mean} ± {se} pp (SE). Sign test p = {_p(h.sign.p)}.</p>{forest_svg(h)}"
                   f"<p class=\"note\">Why runs failed, B against A:</p>"
                   f"{class_diff_table(h.a.variant, h.b.variant, h.failures)}")
        if h.only_a or h.only_b:
            out.append(f"<p class=\"note\">Not in both: {escape(', '.join(h.only_a + h.only_b))}.</p>")
    out.append(failures_section(groups))
    out.append("<h2>Dispatch over the fleet's devices</h2><p class=\"note\">Share of each arm's swarm tasks that "
               "each device ran (from the runs' per-device counts).</p>")
    out.append(dispatch_svg(shown_arms, extra) or "<p class=\"note\">No per-device counts recorded.</p>")
    out.append(f"<h2>Fleet timeline</h2><p class=\"note\">Each job as a bar on the host that ran it, from its start "
               f"(finish − wall time) to its finish; the most recent {TIMELINE_MAX} jobs.</p>")
    out.append(timeline_svg(recs, has_report) or "<p class=\"note\">No timestamps recorded.</p>")
    out.append(spec_table.recent_runs(recs, has_report))
    out.append("</body></html>")
    return "".join(out)


def _p(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:.3f}"
