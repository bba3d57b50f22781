"""BENCHMARK.html, "over time": per arm, its campaigns' pass rates in time order (inline SVG).

One chart per arm (:mod:`swarmgym.trend.series`): a line through each campaign's pass rate, the Wilson 95 %
interval as a band around it, a dashed rule and a label wherever the swarm build or the suite hash changes,
and a marker on every campaign whose change detection said ``regressed`` (red, pointing down) or
``improved`` (green, pointing up).  Every point's tooltip names its campaign, build, suite hash, counts and
verdict.  Campaigns are spaced evenly (a campaign per step, whatever the gap in time between them).

An arm with fewer than :data:`RUN_LEVEL_BELOW` campaigns gets a useful picture from its first campaign on:
its runs in the order they finished (:func:`runs_svg`), each a dot coloured by overall and linked to its
report.html, with the running pass rate of its campaign and that rate's Wilson band.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Sequence

from markupsafe import Markup, escape

from swarmgym.ledger.mapping import INFRA
from swarmgym.models import LedgerRecord
from swarmgym.trend import stats
from swarmgym.trend.series import ArmTrend, Point

W, H = 860, 230
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 34, 40
MARK = {"regressed": "#c62828", "improved": "#2e7d32"}
LINE, BAND = "#1565c0", "#bbdefb"
MAX_POINTS = 120  # the most recent campaigns drawn per arm
RUN_LEVEL_BELOW = 3  # an arm with fewer campaigns is drawn run by run
MAX_RUNS = 300  # the most recent runs drawn per arm, run by run
RUN_COLORS = {"pass": "#2e7d32", "partial": "#f9a825", "fail": "#c62828", "error": "#6a1b9a"}
CHAR_W = 6.0  # px per character of a 10 px label, a little more than most fonts need


def _tip(p: Point) -> str:
    lo, hi = p.total.interval
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(p.started))
    rate = (f"{p.total.passes}/{p.total.runs} = {100 * p.total.rate:.0f}% (Wilson 95% {100 * lo:.0f}–{100 * hi:.0f}%)"
            if p.total.runs else "no graded run")
    verdict = f" · {p.reason}" if p.reason else (f" · {p.verdict}" if p.verdict else "")
    return (f"{p.campaign_id} · {when} UTC · build {p.build or '?'} · suite {p.suite or '?'} "
            f"{(p.suite_hash or '').removeprefix('sha256:')[:12]} · {rate}{verdict}")


def _frame(n: int) -> tuple[Callable[[int], float], Callable[[float], float], list[str]]:
    """(x of the i-th of ``n`` points spaced evenly, y of a rate, the 0–100 % grid lines) of an over-time chart."""
    plot_w, plot_h = W - LEFT - RIGHT, H - TOP - BOTTOM
    step = plot_w / max(1, n - 1)
    x = (lambda i: LEFT + plot_w / 2) if n == 1 else (lambda i: LEFT + i * step)  # noqa: E731
    y = lambda v: TOP + plot_h * (1 - v)  # noqa: E731
    body = [f'<line x1="{LEFT}" y1="{y(v):.1f}" x2="{W - RIGHT}" y2="{y(v):.1f}" stroke="#eceff1"/>'
            f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" font-size="10" text-anchor="end" fill="#546e7a">'
            f'{100 * v:.0f}%</text>' for v in (0, 0.25, 0.5, 0.75, 1.0)]
    return x, y, body


def arm_svg(a: ArmTrend) -> Markup:
    pts = [p for p in a.points if p.total.runs][-MAX_POINTS:]
    if not pts:
        return Markup("")
    x, y, body = _frame(len(pts))
    plot_h = H - TOP - BOTTOM
    bounds = [p.total.interval for p in pts]
    band = [f"{x(i):.1f},{y(hi):.1f}" for i, (_, hi) in enumerate(bounds)]
    band += [f"{x(i):.1f},{y(lo):.1f}" for i, (lo, _) in reversed(list(enumerate(bounds)))]
    if len(pts) > 1:
        body.append(f'<polygon class="band" points="{" ".join(band)}" fill="{BAND}" opacity="0.7"/>')
    else:
        lo, hi = bounds[0]
        body.append(f'<line class="band" x1="{x(0):.1f}" y1="{y(hi):.1f}" x2="{x(0):.1f}" y2="{y(lo):.1f}" '
                    f'stroke="{BAND}" stroke-width="8"/>')
    body.append(f'<polyline class="rate" points="{" ".join(f"{x(i):.1f},{y(p.total.rate):.1f}" for i, p in enumerate(pts))}" '
                f'fill="none" stroke="{LINE}" stroke-width="2"/>')
    body += _rules(pts, x, plot_h)
    for i, p in enumerate(pts):
        cx, cy = x(i), y(p.total.rate)
        body.append(f'<g class="point" data-campaign="{escape(p.campaign_id)}" data-rate="{p.total.rate:.4f}">'
                    f'<title>{escape(_tip(p))}</title><circle cx="{cx:.1f}" cy="{cy:.1f}" r="3.5" fill="{LINE}"/></g>')
        if p.verdict in MARK:
            down = p.verdict == "regressed"
            ty = cy + 9 if down else cy - 9   # below a drop, above a rise
            tri = (f"{cx - 6:.1f},{ty - 5:.1f} {cx + 6:.1f},{ty - 5:.1f} {cx:.1f},{ty + 5:.1f}" if down else
                   f"{cx - 6:.1f},{ty + 5:.1f} {cx + 6:.1f},{ty + 5:.1f} {cx:.1f},{ty - 5:.1f}")
            body.append(f'<g class="change-marker" data-verdict="{p.verdict}" data-campaign="{escape(p.campaign_id)}">'
                        f'<title>{escape(p.reason or p.verdict)}</title>'
                        f'<polygon points="{tri}" fill="{MARK[p.verdict]}" stroke="#fff" stroke-width="1"/></g>')
    body.append(_ends(time.strftime("%Y-%m-%d", time.gmtime(pts[0].started)),
                      f'{time.strftime("%Y-%m-%d", time.gmtime(pts[-1].started))} · {len(pts)} campaigns'))
    return _chart("trend", a.arm, f"pass rate over time for {a.arm}", body)


def _ends(left: str, right: str) -> str:
    """The labels under a chart's first and last point."""
    return (f'<text x="{LEFT}" y="{H - 8}" font-size="10" fill="#546e7a">{escape(left)}</text>'
            f'<text x="{W - RIGHT}" y="{H - 8}" font-size="10" fill="#546e7a" text-anchor="end">{escape(right)}</text>')


def _chart(cls: str, arm: str, label: str, body: list[str]) -> Markup:
    return Markup(f'<svg class="chart {cls}" data-arm="{escape(arm)}" xmlns="http://www.w3.org/2000/svg" '
                  f'width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img" aria-label="{escape(label)}">'
                  + "".join(body) + "</svg>")


def _rules(pts: Sequence[Point], x, plot_h: float) -> list[str]:
    """A dashed rule and a label where the build or the suite hash changes (and at the first point)."""
    out = []
    row = 0
    for i, p in enumerate(pts):
        prev = pts[i - 1] if i else None
        what = []
        if prev is None or p.build != prev.build:
            what.append(f"build {p.build or '?'}")
        if prev is not None and p.suite_hash != prev.suite_hash:
            what.append(f"suite {(p.suite_hash or '?').removeprefix('sha256:')[:8]}")
        if not what:
            continue
        anchor, text = _label(x(i), " · ".join(what))
        ty = TOP - 20 + 10 * (row % 2)
        row += 1
        out.append(f'<g class="build-change" data-campaign="{escape(p.campaign_id)}">'
                   f'<line x1="{x(i):.1f}" y1="{TOP - 10 + 10 * ((row - 1) % 2)}" x2="{x(i):.1f}" y2="{TOP + plot_h}" '
                   f'stroke="#90a4ae" stroke-dasharray="3 3"/>'
                   f'<text x="{x(i) + (3 if anchor == "start" else -3):.1f}" y="{ty}" font-size="10" fill="#37474f" '
                   f'text-anchor="{anchor}">{escape(text)}</text></g>')
    return out


def _label(at: float, text: str) -> tuple[str, str]:
    """(text-anchor, text) for a label at ``at``: it runs toward the wider side of the chart and is shortened
    only if even that side has no room for it (the full text stays in the tooltip)."""
    anchor = "end" if at > W / 2 else "start"
    room = (at - 4) if anchor == "end" else (W - at - 4)
    return anchor, _short(text, max(8, int(room / CHAR_W)))


def _short(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def runs_svg(arm: str, runs: Sequence[LedgerRecord], has_report: Callable[[str], bool] = lambda sid: True) -> Markup:
    """One arm's runs in the order they finished: a dot per run (colour = overall, filled when functional,
    linked to its report.html), the running pass rate of its campaign (restarting at each campaign) and
    that rate's Wilson 95 % band, a dashed rule and label where each campaign starts."""
    runs = [r for r in runs if r.overall != INFRA][-MAX_RUNS:]
    if not runs:
        return Markup("")
    x, y, body = _frame(len(runs))
    plot_h = H - TOP - BOTTOM
    rates: list[tuple[float, float, float]] = []
    segments: list[list[int]] = []
    row = 0
    passes = n = 0
    for i, r in enumerate(runs):
        if i == 0 or r.campaign_id != runs[i - 1].campaign_id:
            passes = n = 0
            segments.append([])
            build = r.provenance.build()
            full = f"campaign {r.campaign_id}" + (f" · build {build}" if build else "")
            anchor, text = _label(x(i), full)
            ty = TOP - 20 + 10 * (row % 2)
            body.append(f'<g class="campaign-start" data-campaign="{escape(r.campaign_id)}">'
                        f'<title>{escape(full)}</title>'
                        f'<line x1="{x(i):.1f}" y1="{ty + 3}" x2="{x(i):.1f}" y2="{TOP + plot_h}" stroke="#90a4ae" '
                        f'stroke-dasharray="3 3"/><text x="{x(i) + (3 if anchor == "start" else -3):.1f}" y="{ty}" '
                        f'font-size="10" fill="#37474f" text-anchor="{anchor}">{escape(text)}</text></g>')
            row += 1
        passes, n = passes + int(r.functional), n + 1
        rates.append((passes / n, *stats.wilson(passes, n)))
        segments[-1].append(i)
    for seg in segments:
        if len(seg) > 1:
            band = [f"{x(i):.1f},{y(rates[i][2]):.1f}" for i in seg]
            band += [f"{x(i):.1f},{y(rates[i][1]):.1f}" for i in reversed(seg)]
            body.append(f'<polygon class="band" points="{" ".join(band)}" fill="{BAND}" opacity="0.7"/>')
            body.append(f'<polyline class="rate" points="{" ".join(f"{x(i):.1f},{y(rates[i][0]):.1f}" for i in seg)}" '
                        f'fill="none" stroke="{LINE}" stroke-width="2"/>')
    for i, r in enumerate(runs):
        rate, lo, hi = rates[i]
        color = RUN_COLORS.get(r.overall, "#90a4ae")
        tip = (f"run {i + 1}: {r.spec} ({r.app_slug}) rep {r.rep} · functional {'yes' if r.functional else 'no'} · "
               f"overall {r.overall} · campaign so far {100 * rate:.0f}% (Wilson 95% {100 * lo:.0f}–{100 * hi:.0f}%)")
        dot = (f'<circle cx="{x(i):.1f}" cy="{y(rate):.1f}" r="4.5" fill="{color if r.functional else "#fff"}" '
               f'stroke="{color}" stroke-width="2"/>')
        inner = f'<title>{escape(tip)}</title>{dot}'
        if has_report(r.session_id):
            inner = f'<a href="{escape(r.session_id)}/report.html">{inner}</a>'
        body.append(f'<g class="run" data-session="{escape(r.session_id)}" data-overall="{escape(r.overall)}" '
                    f'data-functional="{int(r.functional)}">{inner}</g>')
    body.append(_ends(f'run 1 · {time.strftime("%Y-%m-%d %H:%M", time.gmtime(runs[0].ts))}',
                      f'run {len(runs)} · {time.strftime("%Y-%m-%d %H:%M", time.gmtime(runs[-1].ts))} UTC'))
    return _chart("trend-runs", arm, f"runs of {arm} in the order they finished, with the running pass rate", body)


def section(arms: Sequence[ArmTrend], runs: dict[str, list[LedgerRecord]] | None = None,
            has_report: Callable[[str], bool] = lambda sid: True) -> str:
    """The page's "over time" section (empty string when no arm has a campaign).  ``runs`` (arm -> its
    records in time order) draws an arm with fewer than :data:`RUN_LEVEL_BELOW` campaigns run by run."""
    shown = [a for a in arms if any(p.total.runs for p in a.points)]
    if not shown:
        return ""
    runs = runs or {}
    by_run = {a.arm for a in shown if a.arm in runs and sum(1 for p in a.points if p.total.runs) < RUN_LEVEL_BELOW}
    n_marks = sum(p.verdict in MARK for a in shown for p in a.points)
    out = ["<h2>Over time</h2>"]
    if len(by_run) < len(shown):
        out.append("<p class=\"note\">Per arm, each campaign's pass rate in the order the campaigns "
                   "started (line), its Wilson 95 % interval (band), a dashed rule where the swarm build or the suite "
                   "hash changes, and a marker where change detection flagged the campaign: red ▼ regressed, green ▲ "
                   f"improved ({n_marks} in all; docs/trend.md). Hover a point for its numbers.</p>")
    if by_run:
        out.append(f"<p class=\"note\">An arm with fewer than {RUN_LEVEL_BELOW} campaigns is drawn run by run: "
                   "each run a dot in the order it finished (filled: functional; colour: overall; click it for its "
                   "report), the line its campaign's pass rate so far, the band that rate's Wilson 95 % interval, "
                   "a dashed rule where each campaign starts.</p>")
    for a in shown:
        n = sum(1 for p in a.points if p.total.runs)
        if a.arm in by_run:
            k = sum(1 for r in runs[a.arm] if r.overall != INFRA)
            out.append(f"<h3>{escape(a.arm)} · {n} campaign{'s' * (n != 1)}, {k} run{'s' * (k != 1)}</h3>"
                       f"{runs_svg(a.arm, runs[a.arm], has_report)}")
        else:
            out.append(f"<h3>{escape(a.arm)} · {n} campaign{'s' * (n != 1)}</h3>{arm_svg(a)}")
    return "".join(out)
