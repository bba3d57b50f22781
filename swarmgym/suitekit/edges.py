"""Edge classes: the kinds of input at the edge of a prompt sentence that golden rows must sample.

A requirement of a traced suite (bench-v3 on) declares, per input it takes, the edge classes that
input has (``inputs: {qty: [zero, negative, missing], name: [quote, unicode]}``). Every declared
class must be sampled by some golden row (a table row tagged ``edges: [...]``) or check
(``edges: [...]`` on a command check), and a spec needs an *edge mutant* per class — an app right on
the common case and wrong on that edge — that some check kills.  ``swarmgym suite coverage`` shows
requirement × class × rows × mutants and refuses a suite with a hole.

A suite may add its own classes (``edge_classes: {name: description}`` in suite.yaml); the
built-in ones below cover the edges most prompts have.
"""
from __future__ import annotations

EDGE_CLASSES: dict[str, str] = {
    "empty": "an empty value: empty string, empty file, empty list, no rows",
    "zero": "the number zero where a count, amount or divisor is expected",
    "negative": "a negative number (or a value below the allowed range)",
    "whitespace": "whitespace other than one space: tabs, newlines, runs of blanks, leading/trailing blanks",
    "big": "magnitudes at or past 10^12 (exponent notation must not leak into integral output)",
    "tiny": "magnitudes at or below 10^-6",
    "rounding": "a value on a rounding boundary (.xx5) or a binary-float trap (0.7 * 3)",
    "separator": "the format's separator inside a value (a comma in a CSV field, '=' in a key)",
    "quote": "quote characters inside a value",
    "unicode": "non-ASCII text in a value (accents, CJK, emoji)",
    "missing": "a required option or argument left out",
    "extra": "extra or unexpected arguments",
    "boundary": "the value exactly at a threshold or limit (strictly-below vs at-or-below)",
    "duplicate": "the same key or name given twice",
    "nesting": "structures nested deeper than the common case (nested blocks, scopes, brackets)",
    "order": "input given in an order other than the sorted or natural one",
}


def known_classes(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The built-in classes plus a suite's own (``edge_classes`` in suite.yaml)."""
    return {**EDGE_CLASSES, **(extra or {})}
