"""runs/<session_id>/: session.json, turn-<n>.json and a self-contained report.html.

Everything is redacted (see :mod:`.redact`) before it is written, and written atomically.
report.html is one file: inline CSS and SVG, no scripts, no external assets; every piece of
model-written or tool output is HTML-escaped by Jinja's autoescape.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Iterable, Mapping

from jinja2 import Environment, FileSystemLoader, select_autoescape

from swarmgym.core.atomic import atomic_write_text
from swarmgym.core.errors import UsageError
from swarmgym.models import Finding, SessionDoc, Turn
from swarmgym.reports import charts
from swarmgym.reports.redact import redact, secret_values

TEMPLATES = Path(__file__).parent / "templates"
SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2, "info": 3}
_env: Environment | None = None


def _jinja() -> Environment:
    global _env
    if _env is None:
        _env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]),
                           trim_blocks=True, lstrip_blocks=True)
        _env.filters["when"] = lambda ts: time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts)) if ts else "–"
    return _env


def write_session(runs_dir: str | Path, doc: SessionDoc, *, environ: Mapping[str, str] | None = None,
                  secrets: Iterable[str] = ()) -> list[Path]:
    """Write the session folder; returns [session.json, turn-1.json, ..., report.html]."""
    sid = doc.session_id
    if not sid or "/" in sid or sid in (".", ".."):
        raise UsageError(f"session_id {sid!r}: expected a plain folder name")
    extra = list(secrets)
    clean = SessionDoc.model_validate(redact(doc.model_dump(mode="json"), secret_values(environ, extra), extra))
    folder = Path(runs_dir) / sid
    paths = [atomic_write_text(folder / "session.json", clean.model_dump_json(indent=2))]
    for turn in clean.turns:
        paths.append(atomic_write_text(folder / f"turn-{turn.n}.json", turn.model_dump_json(indent=2)))
    paths.append(atomic_write_text(folder / "report.html", render_html(clean)))
    return paths


def render_html(doc: SessionDoc) -> str:
    return _jinja().get_template("session.html").render(doc=doc, turns=[_turn_view(t) for t in doc.turns],
                                                        wall=sum(t.wall_secs for t in doc.turns))


def _turn_view(turn: Turn) -> dict:
    v = turn.verdict
    findings: list[Finding] = list(v.findings) if v else []
    if v and not findings:
        findings = [f for d in v.dimensions.values() for f in d.findings]
    findings.sort(key=lambda f: SEVERITY_ORDER.get(f.severity, 9))
    checks: list[Any] = []
    if v and "checks" in v.dimensions:
        checks = v.dimensions["checks"].data.get("results") or []
    per_device = turn.per_device or (turn.run.report.dispatched_per_device if turn.run and turn.run.report else {})
    shares = charts.shares(per_device, turn.pool)
    models = turn.diagnostics_by_model
    metrics = list(dict.fromkeys(m for counts in models.values() for m in counts))  # as recorded
    tweak = turn.tweak or None
    tweak_chart = None
    if tweak and (tweak.get("before") or tweak.get("after")):
        tweak_chart = charts.before_after_svg(tweak.get("before") or {}, tweak.get("after") or {})
    return {
        "t": turn, "verdict": v, "findings": findings, "checks": [_check(c) for c in checks],
        "shares": shares, "chart": charts.distribution_svg(shares), "metrics": metrics, "models": models,
        "tweak": tweak, "tweak_chart": tweak_chart,
        "tweak_json": {k: _plain(val) for k, val in (tweak or {}).items() if k not in ("before", "after")},
    }


def _plain(val) -> str:
    if isinstance(val, str):
        return val
    if isinstance(val, (list, tuple)) and all(isinstance(x, (str, int, float)) for x in val):
        return ", ".join(str(x) for x in val) or "none"
    return json.dumps(val, indent=1, default=str)


def _check(c) -> dict:
    """Checks may arrive as CheckResult dicts (dimension data) or models."""
    return c if isinstance(c, dict) else c.model_dump()
