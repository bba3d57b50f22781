"""Inline SVG charts for report.html (no external assets, every label escaped)."""
from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup, escape

from swarmgym.grading.balance import shares as judge
from swarmgym.models import PoolDevice

LABEL_W = 260   # the narrowest label column: the charts of one page line up when their labels are short


def label_width(labels, char_px: float = 8.0, least: int = LABEL_W) -> int:
    """Width of a chart's label column: room for its longest label at 12 px (none is cut), at least ``least``."""
    return max(least, int(max((len(x) for x in labels), default=0) * char_px) + 16)


COLORS = {"ok": "#2e7d32", "underused": "#f9a825", "idle": "#ef6c00", "starved": "#c62828", "extra": "#6a1b9a"}


@dataclass
class DeviceShare:
    device: str
    dispatched: int
    fair: float
    weight: float
    status: str  # ok | underused | idle | starved | extra (dispatched but not an enabled pool device)


def shares(per_device: dict[str, int], pool: list[PoolDevice]) -> list[DeviceShare]:
    """Dispatched vs fair share per device, as :mod:`swarmgym.grading.balance` judges them (goose's weights)."""
    enabled = {p.id for p in pool if p.enabled}
    rows = judge(dict(per_device), [p for p in pool if p.enabled] if enabled else [])
    return [DeviceShare(r.device, r.dispatched, r.fair, float(r.weight),
                        "extra" if enabled and r.device not in enabled else r.state) for r in rows]


def distribution_svg(items: list[DeviceShare], title: str = "tasks dispatched vs fair share") -> Markup:
    if not items:
        return Markup("")
    label_w, bar_w, row_h, top = 160, 420, 26, 34
    scale = max([i.dispatched for i in items] + [i.fair for i in items] + [1]) * 1.1
    h = top + row_h * len(items) + 10
    parts = [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 90}" height="{h}" '
             f'role="img" aria-label="{escape(title)}">',
             f'<text x="0" y="14" font-size="13" font-weight="bold">{escape(title)}</text>',
             f'<rect x="{label_w}" y="20" width="10" height="8" fill="{COLORS["ok"]}"/>'
             f'<text x="{label_w + 14}" y="28" font-size="11">dispatched</text>'
             f'<line x1="{label_w + 90}" y1="24" x2="{label_w + 104}" y2="24" stroke="#1565c0" stroke-width="3"/>'
             f'<text x="{label_w + 108}" y="28" font-size="11">fair share (from pool weights)</text>']
    for n, it in enumerate(items):
        y = top + n * row_h
        w = bar_w * it.dispatched / scale
        fx = label_w + bar_w * it.fair / scale
        parts.append(
            f'<g class="device" data-device="{escape(it.device)}" data-status="{it.status}">'
            f'<text x="{label_w - 6}" y="{y + 15}" font-size="12" text-anchor="end">{escape(it.device)}</text>'
            f'<rect x="{label_w}" y="{y + 3}" width="{bar_w}" height="16" fill="#eceff1"/>'
            f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="16" fill="{COLORS[it.status]}">'
            f'<title>{escape(it.device)}: {it.dispatched} dispatched, fair share {it.fair:.1f} ({it.status})</title></rect>'
            f'<line x1="{fx:.1f}" y1="{y}" x2="{fx:.1f}" y2="{y + 22}" stroke="#1565c0" stroke-width="3"/>'
            f'<text x="{label_w + bar_w + 6}" y="{y + 15}" font-size="11">{it.dispatched} / {it.fair:.1f} '
            f'{"" if it.status == "ok" else escape(it.status)}</text></g>')
    parts.append("</svg>")
    return Markup("".join(parts))


def before_after_svg(before: dict[str, int], after: dict[str, int]) -> Markup:
    devices = list(dict.fromkeys([*before, *after]))
    if not devices:
        return Markup("")
    label_w, bar_w, row_h, top = 160, 420, 34, 34
    scale = max([*before.values(), *after.values(), 1]) * 1.1
    h = top + row_h * len(devices) + 10
    parts = [f'<svg class="chart tweak-chart" xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 60}" '
             f'height="{h}" role="img" aria-label="tasks per device before and after the tweak">',
             '<text x="0" y="14" font-size="13" font-weight="bold">tasks per device: before vs after</text>',
             f'<rect x="{label_w}" y="20" width="10" height="8" fill="#90a4ae"/>'
             f'<text x="{label_w + 14}" y="28" font-size="11">before</text>'
             f'<rect x="{label_w + 70}" y="20" width="10" height="8" fill="#1565c0"/>'
             f'<text x="{label_w + 84}" y="28" font-size="11">after</text>']
    for n, dev in enumerate(devices):
        y = top + n * row_h
        b, a = int(before.get(dev, 0)), int(after.get(dev, 0))
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 17}" font-size="12" text-anchor="end">{escape(dev)}</text>'
            f'<rect x="{label_w}" y="{y + 2}" width="{bar_w * b / scale:.1f}" height="12" fill="#90a4ae"/>'
            f'<text x="{label_w + bar_w * b / scale + 4:.1f}" y="{y + 12}" font-size="10">{b}</text>'
            f'<rect x="{label_w}" y="{y + 16}" width="{bar_w * a / scale:.1f}" height="12" fill="#1565c0"/>'
            f'<text x="{label_w + bar_w * a / scale + 4:.1f}" y="{y + 26}" font-size="10">{a}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
