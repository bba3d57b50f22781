"""``runs/compare-<id>.html``: the sequential path of one ``swarmgym compare`` (inline SVG, no CDN).

The answer first, as every view says it (:mod:`swarmgym.trend.answer`: B minus A, its interval, the
decision, the next step; green when B is better, red when worse).  Then two charts over rounds: the
discordant pairs B won minus those A won against the test's boundary (reaching it decides A or B), and the
effect with its interval against ``±min_effect`` (an interval inside that band decides "no difference").
A table lists every round with its pairs and campaigns.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from swarmgym.core.atomic import atomic_write_text
from swarmgym.reports.answer_view import answer_html
from swarmgym.trend.answer import TONE_COLORS, Answer

if TYPE_CHECKING:
    from swarmgym.comparison.compare import CompareState
    from swarmgym.config import Config
    from swarmgym.trend.sequential import Step

W, H, LEFT, TOP, BOTTOM = 640, 240, 56, 30, 34


def _x(k: int, n: int) -> float:
    return LEFT + (W - LEFT - 20) * (k - 0.5) / max(n, 1)


def _frame(title: str, y_lo: float, y_hi: float, n: int, ticks: Sequence[float]) -> tuple[list[str], Callable[[float], float]]:
    def y(v: float) -> float:
        return TOP + (H - TOP - BOTTOM) * (y_hi - v) / ((y_hi - y_lo) or 1.0)

    parts = [(f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" role="img" '
              f'aria-label="{escape(title)}">'),
             f'<text x="0" y="14" font-size="13" font-weight="bold">{escape(title)}</text>',
             f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{H - BOTTOM}" stroke="#90a4ae"/>',
             f'<line x1="{LEFT}" y1="{H - BOTTOM}" x2="{W - 20}" y2="{H - BOTTOM}" stroke="#90a4ae"/>',
             f'<text x="{(W + LEFT) / 2:.0f}" y="{H - 4}" font-size="11" text-anchor="middle">round</text>']
    for t in ticks:
        parts.append(f'<text x="{LEFT - 6}" y="{y(t) + 4:.1f}" font-size="10" text-anchor="end">{t + 0.0:g}</text>')
    step = max(1, math.ceil(n / 15))
    for k in range(1, n + 1, step):
        parts.append(f'<text x="{_x(k, n):.1f}" y="{H - BOTTOM + 14}" font-size="10" text-anchor="middle">{k}</text>')
    return parts, y


def _hline(y: float, color: str, label: str, dash: str = "6 4", dy: float = -4) -> str:
    return (f'<line x1="{LEFT}" y1="{y:.1f}" x2="{W - 20}" y2="{y:.1f}" stroke="{color}" stroke-dasharray="{dash}"/>'
            f'<text x="{W - 22}" y="{y + dy:.1f}" font-size="10" text-anchor="end" fill="{color}">{escape(label)}</text>')


def walk_svg(steps: Sequence[Step]) -> Markup:
    """B-only minus A-only discordant pairs per round against ±the boundary that decides."""
    if not steps:
        return Markup("")
    n = len(steps)
    top = max(max(s.bound for s in steps), max(abs(s.b_wins - s.a_wins) for s in steps), 1) * 1.15
    parts, y = _frame("B-only − A-only discordant pairs per round (decides when it reaches the boundary)", -top, top, n,
                      sorted({-round(top), 0.0, round(top)}))
    parts.append(_hline(y(0.0), "#607d8b", "", "2 3"))
    up = " ".join(f"{_x(s.round, n):.1f},{y(min(s.bound, top)):.1f}" for s in steps)
    down = " ".join(f"{_x(s.round, n):.1f},{y(-min(s.bound, top)):.1f}" for s in steps)
    parts.append(f'<polyline class="boundary" fill="none" stroke="{TONE_COLORS["better"]}" stroke-dasharray="6 4" '
                 f'points="{up}"><title>boundary: B decided better</title></polyline>')
    parts.append(f'<polyline class="boundary" fill="none" stroke="{TONE_COLORS["worse"]}" stroke-dasharray="6 4" '
                 f'points="{down}"><title>boundary: A decided better</title></polyline>')
    pts = " ".join(f"{_x(s.round, n):.1f},{y(s.b_wins - s.a_wins):.1f}" for s in steps)
    parts.append(f'<polyline class="walk" fill="none" stroke="#37474f" stroke-width="2" points="{pts}"/>')
    for s in steps:
        parts.append(f'<circle class="round" data-round="{s.round}" cx="{_x(s.round, n):.1f}" '
                     f'cy="{y(s.b_wins - s.a_wins):.1f}" r="3" fill="#37474f"><title>round {s.round}: '
                     f'{s.b_wins} B-only − {s.a_wins} A-only of {s.pairs} pairs; boundary ±{s.bound}; '
                     f'α spent {s.spent:.4f}; p = {s.p_value:.4f}</title></circle>')
    parts.append("</svg>")
    return Markup("".join(parts))


def effect_svg(steps: Sequence[Step], min_effect: float) -> Markup:
    """Effect estimate (B − A pass rate) with its interval per round; coloured for B: green above 0, red below."""
    if not steps:
        return Markup("")
    n = len(steps)
    parts, y = _frame("effect (B − A pass rate) and its interval", -1.0, 1.0, n, [-1.0, -0.5, 0.0, 0.5, 1.0])
    parts.append(_hline(y(0.0), "#607d8b", "", "2 3"))
    parts.append(_hline(y(min_effect), "#78909c", f"+min effect {min_effect:g}"))
    parts.append(_hline(y(-min_effect), "#78909c", f"−min effect {min_effect:g}", dy=12))
    for s in steps:
        x = _x(s.round, n)
        tone = "better" if s.lo > 0 else "worse" if s.hi < 0 else "neutral"
        if not (math.isnan(s.lo) or math.isnan(s.hi)):
            parts.append(f'<line class="interval" data-tone="{tone}" x1="{x:.1f}" y1="{y(s.hi):.1f}" x2="{x:.1f}" '
                         f'y2="{y(s.lo):.1f}" stroke="{TONE_COLORS[tone]}" stroke-opacity="0.45" stroke-width="6">'
                         f'<title>round {s.round}: [{s.lo:+.3f}, {s.hi:+.3f}]</title></line>')
        parts.append(f'<circle cx="{x:.1f}" cy="{y(s.effect):.1f}" r="3" fill="#1565c0">'
                     f'<title>round {s.round}: effect {s.effect:+.3f}</title></circle>')
    parts.append("</svg>")
    return Markup("".join(parts))


CSS = ("body{font-family:system-ui,sans-serif;margin:2em;max-width:900px}table{border-collapse:collapse}"
       "td,th{border:1px solid #cfd8dc;padding:3px 8px;font-size:13px;text-align:left}.chart{display:block;margin:1em 0}"
       ".decision{font-size:20px;font-weight:bold}.note{color:#546e7a;font-size:13px}")


def render(st: CompareState, ans: Answer | None = None) -> str:
    steps = st.steps()
    ans = ans or st.answer()
    rows = []
    for r in st.rounds:
        s = r.step
        pairs = ", ".join(f"{p.spec}: {_mark(p.a)}/{_mark(p.b)}" + (f" ({p.note})" if p.note else "") for p in r.pairs)
        rows.append(f"<tr><td>{r.round}</td><td>{r.seed}</td><td>{escape(pairs)}</td>"
                    f"<td>{s.get('b_wins', 0) - s.get('a_wins', 0):+d} / ±{s.get('bound', 0)}</td>"
                    f"<td>{s.get('p_value', 1):.4f}</td>"
                    f"<td>{s.get('effect', 0):+.3f} [{s.get('lo', -1):+.3f}, {s.get('hi', 1):+.3f}]</td>"
                    f"<td>{escape(s.get('decision', ''))}</td><td>{escape(', '.join(r.campaigns))}</td></tr>")
    head = (f"<p>A = <b>{escape(st.a.label)}</b> (flags {escape(str(st.a_flags))}), "
            f"B = <b>{escape(st.b.label)}</b> (flags {escape(str(st.b_flags))}); suite {escape(st.suite)} "
            f"{escape(st.suite_hash)} via {escape(st.swarm)} ({escape(st.mode)}); α = {st.alpha:g}, "
            f"min effect {st.min_effect:g}, budget {st.max_runs} runs; {st.runs} runs in {len(st.rounds)} round(s); "
            f"seeds from {st.seed}; disagreement expected from the ledger: {escape(st.psi_source or 'unknown')}</p>")
    return ("<!doctype html><html><head><meta charset=\"utf-8\">"
            f"<title>compare {escape(st.compare_id)}</title><style>{CSS}</style></head><body>"
            f"<h1>compare {escape(st.compare_id)}</h1>{answer_html(ans)}{head}"
            f"{walk_svg(steps)}{effect_svg(steps, st.min_effect)}"
            "<table><tr><th>round</th><th>seed</th><th>pairs (A/B functional)</th><th>B−A / boundary</th><th>p</th>"
            "<th>effect [interval]</th><th>decision</th><th>campaigns</th></tr>" + "".join(rows) + "</table>"
            "<p>Method: docs/compare.md (group-sequential exact McNemar with α spending on the discordant pairs; "
            "repeated confidence interval).</p></body></html>")


def _mark(v: bool | None) -> str:
    return "–" if v is None else ("✓" if v else "✗")


def page_path(cfg: Config, compare_id: str) -> Path:
    """Where one compare's page is written: ``runs/compare-<id>.html``."""
    return cfg.runs_dir / f"compare-{compare_id}.html"


def write_page(cfg: Config, st: CompareState, ans: Answer | None = None) -> Path:
    return atomic_write_text(page_path(cfg, st.compare_id), render(st, ans))
