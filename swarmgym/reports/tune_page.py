"""``runs/tune-<id>.html``: one ``swarmgym tune`` race in pictures (inline SVG, no CDN).

The verdict first (the best arm, or no arm better than the baseline, or undecided with its next step), then
the leader against the baseline as every comparison is shown (:mod:`.answer_view`: B − A, its interval, in
B's colour); the arms over rounds (each arm's pass rate so far, ended where it was shown worse); the
eliminations, each with the arm that showed it worse and that pair's interval; and why the leader's and the
baseline's runs failed, class by class.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

from swarmgym.core.atomic import atomic_write_text
from swarmgym.reports.answer_view import answer_html, class_diff_table, classes_svg
from swarmgym.reports.bench import ClassDiff
from swarmgym.reports.benchmark_html import PALETTE
from swarmgym.trend import stats
from swarmgym.trend.answer import TONE_COLORS, Answer, pp

if TYPE_CHECKING:
    from swarmgym.comparison.tune import TuneState
    from swarmgym.config import Config

W, H, LEFT, TOP, BOTTOM = 700, 260, 56, 30, 34
CSS = ("body{font-family:system-ui,sans-serif;margin:2em;max-width:960px;color:#263238}table{border-collapse:collapse}"
       "td,th{border:1px solid #cfd8dc;padding:3px 8px;font-size:13px;text-align:left}.chart{display:block;margin:1em 0}"
       ".decision{font-size:20px;font-weight:bold}.note{color:#546e7a;font-size:13px}")


def rounds_svg(st: TuneState) -> Markup:
    """Each arm's pass rate so far after every round it ran; a cross where it was shown worse."""
    n = len(st.rounds)
    if not n:
        return Markup("")

    def x(k: float) -> float:
        return LEFT + (W - LEFT - 200) * (k - 0.5) / n

    def y(v: float) -> float:
        return TOP + (H - TOP - BOTTOM) * (1 - v)

    parts = [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" role="img" '
             f'aria-label="arms over rounds">',
             '<text x="0" y="14" font-size="13" font-weight="bold">pass rate so far, per arm and round</text>',
             f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{H - BOTTOM}" stroke="#90a4ae"/>',
             f'<line x1="{LEFT}" y1="{H - BOTTOM}" x2="{W - 200}" y2="{H - BOTTOM}" stroke="#90a4ae"/>']
    for v in (0.0, 0.5, 1.0):
        parts.append(f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" font-size="10" text-anchor="end">{int(100 * v)}%</text>')
    for i, arm in enumerate(st.arms):
        color = PALETTE[i % len(PALETTE)]
        passes = runs = 0
        pts, last = [], None
        for rnd in st.rounds:
            outs = [v for v in rnd.outcomes.get(str(i), []) if v is not None]
            if str(i) not in rnd.outcomes:
                continue
            passes += sum(outs)
            runs += len(outs)
            if runs:
                last = (x(rnd.round), y(passes / runs), rnd)
                pts.append(f"{last[0]:.1f},{last[1]:.1f}")
        if not pts or last is None:
            continue
        out = next((rnd.round for rnd in st.rounds if str(i) in rnd.eliminated), None)
        parts.append(f'<g class="arm-line" data-arm="{escape(arm.label)}" data-out="{out or ""}">'
                     f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{" ".join(pts)}"/>'
                     f'<title>{escape(arm.label)}: {passes}/{runs}'
                     + (f", shown worse in round {out}" if out else "") + "</title>")
        if out:
            parts.append(f'<text x="{last[0]:.1f}" y="{last[1] + 4:.1f}" font-size="14" text-anchor="middle" '
                         f'fill="{color}">✕</text>')
        label = ("★ " if i == st.winner else "") + arm.label + (" (baseline)" if i == st.baseline else "")
        parts.append(f'<text x="{W - 196}" y="{TOP + 14 * i + 4}" font-size="11" fill="{color}">{escape(label)}</text></g>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _classes(st: TuneState, arm: int) -> Counter:
    """The failure classes of an arm's runs in this tune (kept in its state: a fleet's records live elsewhere)."""
    return Counter(k for rnd in st.rounds for k in rnd.failures.get(str(arm), []))


def render(cfg: Config, st: TuneState, summary: dict[str, Any]) -> str:
    leader = next(i for i, a in enumerate(st.arms) if a.label == summary["leader"])
    head = (f'<p class="decision" data-decision="{escape(st.decision)}" style="color:'
            f'{TONE_COLORS["better" if st.decision == "best" and leader != st.baseline else "neutral"]}">'
            f'{escape(summary["verdict"])}</p>'
            f'<p>{len(st.arms)} arms on {escape(st.suite)} {escape(st.suite_hash)} via {escape(st.swarm)} '
            f'({escape(st.mode)}); baseline {escape(st.label(st.baseline))}; confidence {1 - st.alpha:g}, '
            f'min effect {st.min_effect:g}; {st.runs} of {st.max_runs} runs in {len(st.rounds)} round(s); '
            f'seeds from {st.seed}.</p>')
    if summary.get("next"):
        head += f'<p class="next">next step: <code>{escape(summary["next"])}</code></p>'
    vs = summary.get("versus_baseline")
    parts = [head]
    if vs:
        parts.append(f"<h2>{escape(summary['leader'])} against the baseline</h2>{answer_html(Answer.from_json(vs))}")
    parts.append(f"<h2>Arms over rounds</h2>{rounds_svg(st)}")
    rows = []
    for a in summary["arms"]:
        rate = "–" if a["rate"] is None else f"{100 * a['rate']:.0f}%"
        status = (f"shown worse in round {a['eliminated_in_round']} by {escape(a['eliminated_by'])}"
                  if a["eliminated_in_round"] else ("winner" if a["arm"] == summary["winner"] else "in the race"))
        rows.append(f"<tr class=\"tune-arm\" data-arm=\"{escape(a['arm'])}\"><td>{escape(a['arm'])}"
                    f"{' (baseline)' if a['baseline'] else ''}</td><td>{a['passes']}/{a['runs']} = {rate}</td>"
                    f"<td>{status}</td></tr>")
    parts.append("<h2>Eliminations</h2><table><tr><th>arm</th><th>passed</th><th>status</th></tr>"
                 + "".join(rows) + "</table>")
    if leader != st.baseline:
        a_c, b_c = _classes(st, st.baseline), _classes(st, leader)
        diffs = []
        for kind in sorted((a_c | b_c).keys() - {"ok"}):
            na, nb = sum(a_c.values()), sum(b_c.values())
            lo, hi = stats.newcombe(b_c[kind], nb, a_c[kind], na)
            diffs.append(ClassDiff(kind, a_c[kind], na, b_c[kind], nb, (b_c[kind] / nb if nb else 0) - (a_c[kind] / na if na else 0), lo, hi))
        parts.append("<h2>Why runs failed: the leader against the baseline</h2>"
                     + classes_svg([(st.label(st.baseline), a_c), (st.label(leader), b_c)])
                     + class_diff_table(st.label(st.baseline), st.label(leader), diffs))
    parts.append("<p class=\"note\">Method: docs/compare.md (an anytime-valid race: pairwise confidence sequences, each "
                 "bound at (1 − confidence)/(K − 1); each round runs the leader and the arms that keep it from "
                 "winning; an arm leaves once another is shown better; the winner is within the minimum effect of "
                 "every arm left). " + escape(f"Every difference is B − A: {pp(0.1)} means B passes "
                                                                "10 points more often.") + "</p>")
    return ("<!doctype html><html><head><meta charset=\"utf-8\">"
            f"<title>tune {escape(st.tune_id)}</title><style>{CSS}</style></head><body>"
            f"<h1>tune {escape(st.tune_id)}</h1>" + "".join(parts) + "</body></html>")


def page_path(cfg: Config, tune_id: str) -> Path:
    return cfg.runs_dir / f"tune-{tune_id}.html"


def write_page(cfg: Config, st: TuneState, summary: dict[str, Any]) -> Path:
    return atomic_write_text(page_path(cfg, st.tune_id), render(cfg, st, summary))
