"""``runs/compare-<id>.html``: the sequential path of one ``swarmgym compare`` (inline SVG, no CDN).

Two charts over rounds: the log e-value against its boundary ``log(1/alpha)`` (crossing it
decides A or B), and the effect estimate with its confidence sequence against
``±min_effect`` (an interval inside that band decides "no difference").  A table lists every
round with its pairs and campaigns.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from swarmgym.core.atomic import atomic_write_text
from swarmgym.reports.charts import COLORS

if TYPE_CHECKING:
    from swarmgym.comparison.compare import CompareState
    from swarmgym.comparison.sequential import Step
    from swarmgym.config import Config

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


def evalue_svg(steps: Sequence[Step], alpha: float) -> Markup:
    """log e-value per round against the boundary log(1/alpha)."""
    if not steps:
        return Markup("")
    bound = math.log(1 / alpha)
    top = max(bound * 1.15, max(s.log_e for s in steps) * 1.05)
    low = min(0.0, min(s.log_e for s in steps) * 1.05)
    n = len(steps)
    parts, y = _frame("log e-value per round (decides A or B when it reaches the boundary)", low, top, n,
                      sorted({round(low, 1), 0.0, round(bound, 2), round(top, 1)}))
    parts.append(_hline(y(bound), COLORS["starved"], f"boundary log(1/α) = {bound:.2f}"))
    pts = " ".join(f"{_x(s.round, n):.1f},{y(s.log_e):.1f}" for s in steps)
    parts.append(f'<polyline class="evalue" fill="none" stroke="#1565c0" stroke-width="2" points="{pts}"/>')
    for s in steps:
        parts.append(f'<circle class="round" data-round="{s.round}" cx="{_x(s.round, n):.1f}" cy="{y(s.log_e):.1f}" r="3" '
                     f'fill="#1565c0"><title>round {s.round}: log e = {s.log_e:.3f}, p = {s.p_value:.4f} '
                     f'({s.a_wins} A-only, {s.b_wins} B-only of {s.pairs} pairs)</title></circle>')
    parts.append("</svg>")
    return Markup("".join(parts))


def effect_svg(steps: Sequence[Step], min_effect: float) -> Markup:
    """Effect estimate (B - A pass rate) with its confidence sequence per round."""
    if not steps:
        return Markup("")
    n = len(steps)
    parts, y = _frame("effect (B − A pass rate) and its confidence sequence", -1.0, 1.0, n, [-1.0, -0.5, 0.0, 0.5, 1.0])
    parts.append(_hline(y(0.0), "#607d8b", "", "2 3"))
    parts.append(_hline(y(min_effect), COLORS["ok"], f"+min effect {min_effect:g}"))
    parts.append(_hline(y(-min_effect), COLORS["ok"], f"−min effect {min_effect:g}", dy=12))
    for s in steps:
        x = _x(s.round, n)
        if not (math.isnan(s.lo) or math.isnan(s.hi)):
            parts.append(f'<line class="interval" x1="{x:.1f}" y1="{y(s.hi):.1f}" x2="{x:.1f}" y2="{y(s.lo):.1f}" '
                         f'stroke="#90a4ae" stroke-width="6"><title>round {s.round}: [{s.lo:+.3f}, {s.hi:+.3f}]'
                         f'</title></line>')
        parts.append(f'<circle cx="{x:.1f}" cy="{y(s.effect):.1f}" r="3" fill="#1565c0">'
                     f'<title>round {s.round}: effect {s.effect:+.3f}</title></circle>')
    parts.append("</svg>")
    return Markup("".join(parts))


CSS = ("body{font-family:system-ui,sans-serif;margin:2em;max-width:900px}table{border-collapse:collapse}"
       "td,th{border:1px solid #cfd8dc;padding:3px 8px;font-size:13px;text-align:left}.chart{display:block;margin:1em 0}"
       ".decision{font-size:20px;font-weight:bold}")


def render(st: CompareState) -> str:
    steps = st.steps()
    last = steps[-1] if steps else None
    rows = []
    for r in st.rounds:
        s = r.step
        pairs = ", ".join(f"{p.spec}: {_mark(p.a)}/{_mark(p.b)}" + (f" ({p.note})" if p.note else "") for p in r.pairs)
        rows.append(f"<tr><td>{r.round}</td><td>{r.seed}</td><td>{escape(pairs)}</td>"
                    f"<td>{s.get('log_e', 0):.3f}</td><td>{s.get('p_value', 1):.4f}</td>"
                    f"<td>{s.get('effect', 0):+.3f} [{s.get('lo', -1):+.3f}, {s.get('hi', 1):+.3f}]</td>"
                    f"<td>{escape(s.get('decision', ''))}</td><td>{escape(', '.join(r.campaigns))}</td></tr>")
    head = (f"<p class=\"decision\">decision: {escape(st.decision)}</p>"
            f"<p>A = <b>{escape(st.a.label)}</b> (flags {escape(str(st.a_flags))}), "
            f"B = <b>{escape(st.b.label)}</b> (flags {escape(str(st.b_flags))}); suite {escape(st.suite)} "
            f"{escape(st.suite_hash)} via {escape(st.swarm)} ({escape(st.mode)}); α = {st.alpha:g}, "
            f"min effect {st.min_effect:g}, budget {st.max_runs} runs; {st.runs} runs in {len(st.rounds)} round(s)"
            + (f"; p = {last.p_value:.4f}, effect {last.effect:+.3f} [{last.lo:+.3f}, {last.hi:+.3f}]" if last else "")
            + "</p>")
    return ("<!doctype html><html><head><meta charset=\"utf-8\">"
            f"<title>compare {escape(st.compare_id)}</title><style>{CSS}</style></head><body>"
            f"<h1>compare {escape(st.compare_id)}</h1>{head}"
            f"{evalue_svg(steps, st.alpha)}{effect_svg(steps, st.min_effect)}"
            "<table><tr><th>round</th><th>seed</th><th>pairs (A/B functional)</th><th>log e</th><th>p</th>"
            "<th>effect [CS]</th><th>decision</th><th>campaigns</th></tr>" + "".join(rows) + "</table>"
            "<p>Method: docs/compare.md (mixture e-value on discordant pairs; betting confidence sequence).</p>"
            "</body></html>")


def _mark(v: bool | None) -> str:
    return "–" if v is None else ("✓" if v else "✗")


def page_path(cfg: Config, compare_id: str) -> Path:
    """Where one compare's page is written: ``runs/compare-<id>.html``."""
    return cfg.runs_dir / f"compare-{compare_id}.html"


def write_page(cfg: Config, st: CompareState) -> Path:
    return atomic_write_text(page_path(cfg, st.compare_id), render(st))
