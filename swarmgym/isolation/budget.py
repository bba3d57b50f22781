"""The workspace-size budget: how much a swarm may leave behind, measured after it ran.

The walk never follows a link (``lstat``), counts a file's apparent size (a sparse 2 GB file is
2 GB: that is what a copy or an artefact bundle would see), and stops as soon as the budget or the
entry cap is passed — a workspace of millions of files costs the harness at most ``max_entries``
``lstat`` calls.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_ENTRIES = 200_000


@dataclass(frozen=True)
class Usage:
    bytes: int
    entries: int
    over: bool  # past the byte budget or the entry cap (then the counts are lower bounds)


def measure(root: Path | str, budget_bytes: int, max_entries: int = MAX_ENTRIES) -> Usage:
    """The size of ``root``'s tree, stopping once ``budget_bytes`` or ``max_entries`` is passed."""
    total = entries = 0
    stack = [str(root)]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                for entry in it:
                    entries += 1
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(entry.path)
                    elif stat.S_ISREG(st.st_mode):
                        total += st.st_size
                    if total > budget_bytes or entries > max_entries:
                        return Usage(total, entries, True)
        except OSError:
            continue
    return Usage(total, entries, False)


def workspace_breach(workspace: Path | str, budget_mb: int, max_entries: int = MAX_ENTRIES) -> str | None:
    """One line if the workspace is over its budget (``sandbox.workspace_mb``), else None."""
    use = measure(workspace, budget_mb << 20, max_entries)
    if not use.over:
        return None
    if use.entries > max_entries:
        return f"the workspace holds more than {max_entries} files and folders (over its budget; sandbox.workspace_mb)"
    return (f"the workspace holds at least {use.bytes / (1 << 20):.0f} MB, over its {budget_mb} MB budget "
            "(sandbox.workspace_mb)")
