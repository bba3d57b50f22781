"""Text the app or the swarm chose, made safe to show a person: one helper, :func:`shown`.

File names, check outputs, device and task names, error messages — anything that came out of a
workspace, a swarm's stdout or event log, or a record built from them — may hold terminal escape
sequences (``\\x1b[2J``, colours, cursor moves, OSC hyperlinks and titles), other control characters,
a newline that starts a fake line, bidi overrides that reorder what is read, or Rich markup
(``[bold green]overall pass[/]``).  :func:`shown` removes escape sequences, turns every other control
character into a visible ``\\xNN``/``\\n`` escape, and (for Rich consoles and tables) escapes markup,
so what is printed is exactly what the value says, on the line it belongs to.  Used by every human
output: ``verify``, ``status``, ``report``, ``workers``, bench progress lines, the CSV and Markdown
reports (HTML pages escape through Jinja / ``markupsafe`` as well).
"""
from __future__ import annotations

import re
from typing import Any

from rich.markup import escape

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]"          # CSI: colours, cursor moves, erase
                   r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
                   r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"       # DCS, SOS, PM, APC strings
                   r"|\x1b[ -/]*[0-~]"                     # two-byte escapes
                   r"|\x9b[0-?]*[ -/]*[@-~]")              # 8-bit CSI
# C0 (tab kept only in multi-line text), DEL, C1, zero-width and bidi controls, line/paragraph separators
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_LINE = re.compile("[\n\t]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(m: re.Match[str]) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def controls_escaped(text: str) -> str:
    """``text`` with every control character but newline and tab as a visible escape (``\\x1b``,
    ``\\u202e``) and nothing removed: what a model is given to read (:mod:`swarmgym.trust.untrusted`)."""
    return _CONTROL.sub(_visible, text)


def shown(value: Any, *, markup: bool = True, multiline: bool = False) -> str:
    """``value`` as text a person can be shown: no escape sequence, every control character visible
    (``multiline=True`` keeps newlines and tabs, for an output tail shown as a block), and with
    ``markup=True`` (the default: a Rich console or table) Rich markup escaped.  ``None`` is ``""``."""
    if value is None:
        return ""
    text = _ANSI.sub("", str(value))
    if not multiline:
        text = _LINE.sub(_visible, text)
    text = _CONTROL.sub(_visible, text)  # \r included: it would let a later part overwrite the line
    return escape(text) if markup else text
