"""A snapshot of the workspace the swarm built: path, size and sha256 of every file.

Read through :mod:`swarmgym.trust.safefs`: only the workspace's own regular files, never a link (wherever
it points), a FIFO, a socket or a device (counted in a problem line).  Skipped: ``.git``, ``.swarm``
(the fleet log, read separately), caches and virtualenvs.  At most ``max_files`` entries are kept
(in sorted walk order) and ``truncated`` says when more existed; files larger than ``hash_cap``
bytes are listed with an empty hash.
"""
from __future__ import annotations

from pathlib import Path

from swarmgym.models import FileEntry
from swarmgym.trust import safefs

SKIP_DIRS = frozenset({".git", ".swarm", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
                       "node_modules", ".venv", "venv", ".tox"})
SKIP_SUFFIXES = (".pyc", ".pyo")
HASH_CAP = 64 * 1024 * 1024


def snapshot(workspace: Path | str, max_files: int, *,
             hash_cap: int = HASH_CAP) -> tuple[list[FileEntry], bool, list[str]]:
    """``(files, truncated, problems)`` for ``workspace``; never raises."""
    root = Path(workspace)
    if not root.is_dir():
        return [], False, [f"snapshot: workspace {root} is not a directory"]
    listing = safefs.list_files(root, max_files=max_files, skip_dirs=SKIP_DIRS, skip_suffixes=SKIP_SUFFIXES)
    problems = [f"snapshot: {p}" for p in listing.problems]
    if listing.truncated:
        problems.append(f"snapshot: more than {max_files} files (or entries), kept the first "
                        f"{len(listing.files)} (swarm.snapshot_max_files)")
    if listing.skipped:
        problems.append("snapshot: not read (links are never followed, only regular files are read): "
                        + ", ".join(f"{n} {k}(s)" for k, n in sorted(listing.skipped.items())))
    files = [FileEntry(path=f.rel, size=f.size, sha256=safefs.sha256(root, f.rel, hash_cap)) for f in listing.files]
    return files, listing.truncated, problems
