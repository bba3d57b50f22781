"""A snapshot of the workspace the swarm built: path, size and sha256 of every file.

Skipped: ``.git``, ``.swarm`` (the fleet log, read separately), caches and virtualenvs, and
symlinks (never followed: a model-written link may point anywhere).  At most ``max_files``
entries are kept (sorted by path) and ``truncated`` says when more existed; files larger than
``hash_cap`` bytes are listed with an empty hash.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from swarmgym.models import FileEntry

SKIP_DIRS = frozenset({".git", ".swarm", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
                       "node_modules", ".venv", "venv", ".tox"})
SKIP_SUFFIXES = (".pyc", ".pyo")
HASH_CAP = 64 * 1024 * 1024


def _sha256(path: Path, size: int, cap: int) -> str:
    if size > cap:
        return ""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def snapshot(workspace: Path | str, max_files: int, *,
             hash_cap: int = HASH_CAP) -> tuple[list[FileEntry], bool, list[str]]:
    """``(files, truncated, problems)`` for ``workspace``; never raises."""
    root = Path(workspace)
    problems: list[str] = []
    if not root.is_dir():
        return [], False, [f"snapshot: workspace {root} is not a directory"]
    paths: list[str] = []
    truncated = False
    for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: problems.append(f"snapshot: {e}")):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not Path(dirpath, d).is_symlink())
        for name in filenames:
            full = Path(dirpath, name)
            if name.endswith(SKIP_SUFFIXES) or full.is_symlink():
                continue
            paths.append(full.relative_to(root).as_posix())
    paths.sort()
    if len(paths) > max_files:
        truncated = True
        problems.append(f"snapshot: {len(paths)} files, kept the first {max_files} (swarm.snapshot_max_files)")
        paths = paths[:max_files]
    files = []
    for rel in paths:
        full = root / rel
        try:
            size = full.stat().st_size
            files.append(FileEntry(path=rel, size=size, sha256=_sha256(full, size, hash_cap)))
        except OSError as e:
            problems.append(f"snapshot: {rel}: {e.strerror or e}")
    return files, truncated, problems
