"""BENCHMARK.html, the parts that explain and link (HTML tables, no script, no external asset).

- :func:`legend`: what ``functional`` and ``overall`` mean, and why they differ *in these runs* (the
  functional runs that are not ``pass`` overall, with the dimension that held each back);
- :func:`per_spec`: per suite hash, a row per spec and a column per arm: the pass rate with its Wilson
  95 % interval, and every run as a mark linked to its ``runs/<session_id>/report.html``;
- :func:`recent_runs`: the most recent runs, one row each, with their dimensions and report link.

``has_report(session_id)`` says whether a run folder holds a report.html (only those are linked).
"""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence

from markupsafe import escape

from swarmgym.ledger.mapping import INFRA
from swarmgym.models import LedgerRecord
from swarmgym.trend import stats
from swarmgym.trend.arms import arm_of

OVERALL_COLORS = {"pass": "#2e7d32", "partial": "#f9a825", "fail": "#c62828", "error": "#6a1b9a", INFRA: "#1565c0"}
DIMENSIONS = ("checks", "swarm", "cluster", "diagnostics")
WHY = {"swarm": "the swarm exited non-zero, timed out or reported a failed task",
       "cluster": "the fleet's work was uneven: a device got no task or far less than its share",
       "diagnostics": "the traces or code show narration (a task 'done' with no tool call) or a stub left in",
       "checks": "a golden check", "requirements": "the judge's requirements", "code_quality": "the judge's "
       "code-quality score", "bugs": "the judge found a bug"}
MAX_MARKS = 40     # run marks per table cell (the most recent)
RECENT_RUNS = 50   # rows of the runs table
CSS = """.legend{background:#f5f7f8;border-left:4px solid #1565c0;padding:8px 14px;margin:14px 0;font-size:13px}
.legend dt{font-weight:bold;margin-top:6px}.legend dd{margin:2px 0 4px 18px}table.specs{width:100%}
table.specs td{vertical-align:top}.ci{color:#546e7a;white-space:nowrap}.marks{line-height:18px;margin-top:3px}
a.run{display:inline-block;width:15px;height:15px;margin:1px;border-radius:2px;color:#fff;font-size:11px;
line-height:15px;text-align:center;text-decoration:none}span.run{display:inline-block;width:15px;height:15px;
margin:1px;border-radius:2px;color:#fff;font-size:11px;line-height:15px;text-align:center}
table.runs{font-size:12px}table.runs td:first-child,.badge{white-space:nowrap}.wrap{overflow-wrap:anywhere}
.badge{color:#fff;border-radius:3px;padding:0 5px}"""


def _graded(records: Sequence[LedgerRecord]) -> list[LedgerRecord]:
    return [r for r in records if r.overall != INFRA]


def legend(records: Sequence[LedgerRecord]) -> str:
    """The one legend of the page, with this page's own numbers."""
    runs = _graded(records)
    functional = [r for r in runs if r.functional]
    overall = Counter(r.overall for r in runs)
    held = [r for r in functional if r.overall != "pass"]
    why: Counter = Counter()
    for r in held:
        for dim, status in r.dimensions.items():
            if dim != "checks" and status not in ("pass", "n/a"):
                why[dim] += 1
    out = ["<div class=\"legend\"><dl>",
           "<dt>functional</dt><dd>every golden check passed: the app does what its prompt asked, shown by running "
           "it. Pass rates, intervals, per-spec tables and head-to-heads count this.</dd>",
           "<dt>overall</dt><dd>the verdict over every dimension the run was graded on (checks, swarm, cluster, "
           "diagnostics): <b>pass</b>, <b>partial</b> when anything is partial or warned, <b>fail</b> when a "
           "dimension fails or a finding is high-severity, <b>error</b> when grading itself broke. The colours "
           "of run marks and the fleet timeline show overall.</dd>",
           f"<dt>why they differ</dt><dd>here {len(functional)} of {len(runs)} runs are functional, "
           f"{overall.get('pass', 0)} pass overall ("
           + ", ".join(f"{k} {overall.get(k, 0)}" for k in ("pass", "partial", "fail", "error")) + "). "]
    if held:
        out.append(f"{len(held)} functional run(s) are not pass overall: the app works, but "
                   + "; ".join(f"{escape(d)} in {n} ({escape(WHY.get(d, 'that dimension'))})"
                               for d, n in why.most_common()) + ".")
    else:
        out.append("Every functional run also passes overall; a run that is not functional always fails overall.")
    infra = len(records) - len(runs)
    if infra:
        out.append(f" {infra} run(s) could not run at all (<b>infra</b>, blue): in no rate.")
    out.append("</dd></dl></div>")
    return "".join(out)


def _mark(r: LedgerRecord, has_report: Callable[[str], bool]) -> str:
    color = OVERALL_COLORS.get(r.overall, "#90a4ae")
    glyph = "✓" if r.functional else ("·" if r.overall == INFRA else "✗")
    dims = " · ".join(f"{d} {r.dimensions[d]}" for d in DIMENSIONS if d in r.dimensions)
    tip = f"{r.spec} ({r.app_slug}) rep {r.rep} · {r.campaign_id} · functional {'yes' if r.functional else 'no'} · " \
          f"overall {r.overall}" + (f" · {dims}" if dims else "") + f" · {r.session_id}"
    if has_report(r.session_id):
        return (f'<a class="run" href="{escape(r.session_id)}/report.html" title="{escape(tip)}" '
                f'style="background:{color}">{glyph}</a>')
    return f'<span class="run" title="{escape(tip)}" style="background:{color}">{glyph}</span>'


def _cell(runs: list[LedgerRecord], has_report: Callable[[str], bool]) -> str:
    if not runs:
        return "<td class=\"ci\">–</td>"
    graded = _graded(runs)
    passes = sum(r.functional for r in graded)
    head = "no graded run"
    if graded:
        lo, hi = stats.wilson(passes, len(graded))
        head = (f"<b>{passes}/{len(graded)}</b> = {100 * passes / len(graded):.0f}% "
                f"<span class=\"ci\">[{100 * lo:.0f}–{100 * hi:.0f}%]</span>")
    shown = runs[-MAX_MARKS:]
    more = f" <span class=\"ci\">+{len(runs) - len(shown)} earlier</span>" if len(runs) > len(shown) else ""
    return f"<td>{head}<div class=\"marks\">{''.join(_mark(r, has_report) for r in shown)}{more}</div></td>"


def per_spec(records: Sequence[LedgerRecord], has_report: Callable[[str], bool] = lambda sid: True) -> str:
    """Per suite hash: a row per spec, a column per arm (pass rate, Wilson 95 %, every run linked)."""
    by_hash: dict[str, dict[str, dict[str, list[LedgerRecord]]]] = {}
    apps: dict[str, str] = {}
    for r in sorted(records, key=lambda r: r.ts):
        by_hash.setdefault(r.suite_hash or "(none)", {}).setdefault(r.spec, {}).setdefault(arm_of(r), []).append(r)
        apps[r.spec] = r.app_slug
    if not by_hash:
        return ""
    out = ["<h2>Per spec</h2><p class=\"note\">Each spec's pass rate (functional runs / graded runs) per arm with "
           "its Wilson 95 % interval; below it every run, oldest first: ✓ functional, ✗ not, coloured by overall "
           "(green pass, amber partial, red fail, purple error, blue infra). Click a run for its report.</p>"]
    for suite_hash, specs in by_hash.items():
        arms = sorted({a for per in specs.values() for a in per})
        suites = ", ".join(sorted({r.suite or "?" for per in specs.values() for rs in per.values() for r in rs}))
        out.append(f"<h3>suite {escape(suites)} · hash <code>{escape(suite_hash)}</code></h3>"
                   "<table class=\"specs\"><tr><th>spec (app)</th>"
                   + "".join(f"<th class=\"wrap\">{escape(a)}</th>" for a in arms) + "</tr>")
        for spec in sorted(specs):
            out.append(f"<tr><td><b>{escape(spec)}</b><br><span class=\"ci\">{escape(apps.get(spec, ''))}</span></td>"
                       + "".join(_cell(specs[spec].get(a, []), has_report) for a in arms) + "</tr>")
        out.append("</table>")
    return "".join(out)


def recent_runs(records: Sequence[LedgerRecord], has_report: Callable[[str], bool] = lambda sid: True,
                n: int = RECENT_RUNS) -> str:
    """The ``n`` most recent runs, newest first, each with its report link."""
    recent = sorted(records, key=lambda r: r.ts, reverse=True)[:n]
    if not recent:
        return ""
    rows = []
    for r in recent:
        color = OVERALL_COLORS.get(r.overall, "#90a4ae")
        link = (f'<a href="{escape(r.session_id)}/report.html">report</a>' if has_report(r.session_id) else "–")
        dims = " · ".join(f"{d} {r.dimensions[d]}" for d in DIMENSIONS if d in r.dimensions)
        rows.append(f"<tr><td>{time.strftime('%Y-%m-%d %H:%M', time.gmtime(r.ts))}</td><td class=\"wrap\">{escape(arm_of(r))}</td>"
                    f"<td>{escape(r.spec)} <span class=\"ci\">{escape(r.app_slug)}</span></td><td>{r.rep}</td>"
                    f"<td>{'yes' if r.functional else 'no'}</td>"
                    f"<td><span class=\"badge\" style=\"background:{color}\">{escape(r.overall)}</span></td>"
                    f"<td class=\"wrap\">{escape(dims)}</td><td>{r.wall_secs:.1f}s</td><td>{link}</td></tr>")
    return (f"<h2>Runs</h2><p class=\"note\">The {len(recent)} most recent run(s), newest first "
            f"(of {len(records)}).</p><table class=\"runs\"><tr><th>finished (UTC)</th><th>arm</th><th>spec</th>"
            "<th>rep</th><th>functional</th><th>overall</th><th>dimensions</th><th>wall</th><th></th></tr>"
            + "".join(rows) + "</table>")



def by_arm(records: Sequence[LedgerRecord]) -> dict[str, list[LedgerRecord]]:
    """arm -> its records in time order (the run-by-run "over time" chart)."""
    out: dict[str, list[LedgerRecord]] = {}
    for r in sorted(records, key=lambda r: r.ts):
        out.setdefault(arm_of(r), []).append(r)
    return out
