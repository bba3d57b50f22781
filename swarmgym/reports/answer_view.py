"""The pictures every page draws the same way: an answer (B minus A, in B's colour) and why runs failed.

Used by BENCHMARK.html and COMPARE.html (:mod:`.benchmark_html`), a compare's page (:mod:`.compare_page`)
and a tune's page (:mod:`.tune_page`), so one comparison looks the same wherever it is shown.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from markupsafe import Markup, escape

from swarmgym.models import FAILURE_KINDS
from swarmgym.reports.charts import label_width
from swarmgym.trend.answer import TONE_COLORS, Answer, pp, pval

KIND_COLORS = {"ok": "#2e7d32", "liar": "#c62828", "narrator": "#ef6c00", "stub": "#f9a825", "crash": "#6a1b9a",
               "hang": "#00838f", "starved": "#5d4037", "infra": "#546e7a", "other": "#9e9e9e",
               "unclassified": "#cfd8dc"}
LEGEND = ("Colours are for the second arm (B): green, B decided better; red, B decided worse; blue, not decided. "
          "Every difference is B − A.")


def answer_html(ans: Answer) -> Markup:
    """The answer: verdict in B's colour, B − A with its interval, p, pairs, folded runs, the next step."""
    nxt = (f'<p class="next">next step: <code>{escape(ans.next_command)}</code></p>' if ans.next_command else "")
    folded = f" {ans.folded} repeated run(s) of a replaying swarm folded." if ans.folded else ""
    return Markup(
        f'<div class="answer" data-tone="{ans.tone}" data-decision="{escape(ans.decision)}" '
        f'data-effect="{ans.effect:.4f}" data-lo="{ans.lo:.4f}" data-hi="{ans.hi:.4f}">'
        f'<p class="decision" style="color:{ans.color};font-weight:bold">{escape(ans.verdict)}</p>'
        f'<p><b>{escape(ans.second)}</b> − <b>{escape(ans.first)}</b>: '
        f'<span class="effect" style="color:{ans.color}">{pp(ans.effect)}</span> '
        f'[{pp(ans.lo)}, {pp(ans.hi)}], p = {pval(ans.p_value)} on {ans.pairs} pairs '
        f'({ans.a_only} only A passed, {ans.b_only} only B passed).{escape(folded)}</p>'
        f'<p class="note">{escape(ans.method)}. {escape(LEGEND)}</p>{nxt}</div>')


def classes_svg(arms: Sequence[tuple[str, Counter]], title: str = "why runs failed: share of each arm's runs per class",
                plot_w: int = 520) -> Markup:
    """One stacked bar per arm: the share of its runs in each failure class (``ok`` first); labels whole."""
    rows = [(a, c) for a, c in arms if sum(c.values())]
    if not rows:
        return Markup("")
    label_w = label_width(a for a, _ in rows)
    kinds = [k for k in ("ok", *FAILURE_KINDS, "unclassified") if any(c.get(k) for _, c in rows)]
    kinds = list(dict.fromkeys(kinds))
    row, top = 30, 34
    body, lx = [], 0
    for k in kinds:
        body.append(f'<rect x="{lx}" y="6" width="10" height="10" fill="{KIND_COLORS.get(k, "#90a4ae")}"/>'
                    f'<text x="{lx + 14}" y="15" font-size="11">{escape(k)}</text>')
        lx += 24 + 7 * len(k)
    for n, (a, c) in enumerate(rows):
        y = top + n * row
        total = sum(c.values())
        body.append(f'<g class="classes" data-arm="{escape(a)}"><text x="{label_w - 8}" y="{y + 15}" font-size="12" '
                    f'text-anchor="end">{escape(a)}</text>')
        x0 = float(label_w)
        for k in kinds:
            v = c.get(k, 0)
            if not v:
                continue
            w = plot_w * v / total
            body.append(f'<rect class="kind" data-kind="{escape(k)}" x="{x0:.1f}" y="{y + 3}" width="{w:.1f}" height="18" '
                        f'fill="{KIND_COLORS.get(k, "#90a4ae")}"><title>{escape(a)} · {escape(k)}: {v} of {total} runs '
                        f'({100 * v / total:.0f}%)</title></rect>')
            x0 += w
        body.append(f'<text x="{label_w + plot_w + 8}" y="{y + 16}" font-size="11">{total} runs</text></g>')
    width, height = max(label_w + plot_w + 80, lx), top + row * len(rows) + 8
    return Markup(f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                  f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">' + "".join(body) + "</svg>")


def class_diff_table(first: str, second: str, diffs: Sequence) -> Markup:
    """Per failure class: each arm's runs in it and B's share minus A's, coloured for B (fewer failures: green)."""
    if not diffs:
        return Markup("")
    rows = []
    for c in diffs:
        tone = "better" if c.hi < 0 else "worse" if c.lo > 0 else "neutral"   # fewer failures is better for B
        interval = "–" if math.isnan(c.lo) else f"[{pp(c.lo)}, {pp(c.hi)}]"
        rows.append(f'<tr class="class-diff" data-kind="{escape(c.kind)}" data-tone="{tone}"><td>{escape(c.kind)}</td>'
                    f"<td>{c.a}/{c.a_runs}</td><td>{c.b}/{c.b_runs}</td>"
                    f'<td style="color:{TONE_COLORS[tone]}">{pp(c.diff)} {interval}</td></tr>')
    return Markup(f"<table class=\"failures\"><tr><th>failure class</th><th>{escape(first)} (A)</th>"
                  f"<th>{escape(second)} (B)</th><th>B − A share of runs, Newcombe 95 %</th></tr>"
                  + "".join(rows) + "</table>")
