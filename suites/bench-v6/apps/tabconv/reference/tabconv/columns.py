"""The --select and --rename options: which columns go out, in which order, under which names."""
from __future__ import annotations

from tabconv import TabconvError


def plan(columns: list[str], select: str | None, renames: list[str]) -> list[tuple[str, str]]:
    """(input column, output name) pairs, in output order."""
    if select is None:
        chosen = list(columns)
    else:
        chosen = [name.strip() for name in select.split(",")]
        for name in chosen:
            if name not in columns:
                raise TabconvError(f"--select: {name!r} is not a column")
        if len(set(chosen)) != len(chosen):
            raise TabconvError("--select: a column is named twice")
    out = {c: c for c in chosen}
    for spec in renames:
        old, sep, new = spec.partition("=")
        if not sep:
            raise TabconvError(f"--rename: expected OLD=NEW, got {spec!r}")
        if old not in out:
            raise TabconvError(f"--rename: {old!r} is not a column")
        out[old] = new
    names = list(out.values())
    if len(set(names)) != len(names):
        raise TabconvError("--rename: two columns would have the same name")
    return list(out.items())
