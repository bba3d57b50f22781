"""The one way the host side walks and reads a workspace: its own regular files, and nothing else.

The workspace is written by the swarm, so it may hold anything: a link to ``<root>/.env`` or
``/etc/shadow``, a FIFO that blocks whoever opens it, a socket, a 2 GB sparse file, a million empty
files.  Collect (snapshot, event log), diagnostics, the judge, the file checks and the run-folder
packer all go through this module, which

- walks with directory file descriptors (``openat``-style, ``O_NOFOLLOW | O_DIRECTORY`` at every
  level), so a path component swapped for a link mid-walk cannot lead outside;
- skips every symbolic link (leaving the workspace or not), FIFO, socket and device, counted in
  :attr:`Listing.skipped`;
- opens a file only with ``O_NOFOLLOW | O_NONBLOCK`` and reads it only if ``fstat`` says it is a
  regular file (a FIFO never blocks the harness);
- caps the entries it looks at, the depth, the files it lists and the bytes it reads — before reading.

Nothing outside the workspace can reach a brain request, a record or a report through it.
"""
from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

MAX_ENTRIES = 100_000   # directory entries looked at, in all
MAX_DEPTH = 40
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class FileInfo:
    rel: str     # posix path relative to the workspace
    size: int
    mtime: float = 0.0


@dataclass
class Listing:
    files: list[FileInfo] = field(default_factory=list)
    truncated: bool = False                               # more files (or entries) than the caps allow
    skipped: dict[str, int] = field(default_factory=dict)  # kind -> count: symlink, fifo, socket, device, other
    problems: list[str] = field(default_factory=list)

    def skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1


def kind_of(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "other"


def list_files(root: Path | str, *, max_files: int = 2000, max_entries: int = MAX_ENTRIES,
               max_depth: int = MAX_DEPTH, skip_dirs: Collection[str] = (), skip_hidden_dirs: bool = False,
               suffixes: Collection[str] | None = None, skip_suffixes: tuple[str, ...] = (),
               under: str | None = None) -> Listing:
    """The regular files under ``root`` (or its folder ``under``, reached without a link) in sorted walk
    order, at most ``max_files``, never following a link; never raises (a problem becomes a line in
    :attr:`Listing.problems`; a missing ``under`` is just an empty listing)."""
    out = Listing()
    budget = [max_entries]
    try:
        top = _open_dir(root, under)
    except FileNotFoundError:
        return out
    except (OSError, ValueError) as e:
        out.problems.append(f"{Path(root, under or '')}: not a readable folder ({getattr(e, 'strerror', None) or e})")
        return out
    try:
        prefix = "/".join(_parts(under)) + "/" if under else ""
        for info in _walk(top, prefix, 0, out, budget, max_depth, frozenset(skip_dirs), skip_hidden_dirs):
            if suffixes is not None and Path(info.rel).suffix not in suffixes:
                continue
            if skip_suffixes and info.rel.endswith(skip_suffixes):
                continue
            if len(out.files) >= max_files:
                out.truncated = True
                break
            out.files.append(info)
    finally:
        os.close(top)
    if budget[0] <= 0:
        out.truncated = True
        out.problems.append(f"{root}: more than {max_entries} entries; the rest was not looked at")
    return out


def _walk(dir_fd: int, prefix: str, depth: int, out: Listing, budget: list[int], max_depth: int,
          skip_dirs: frozenset[str], skip_hidden: bool) -> Iterator[FileInfo]:
    entries: list[os.DirEntry] = []
    try:
        with os.scandir(dir_fd) as it:
            for entry in it:
                budget[0] -= 1
                if budget[0] < 0:
                    break
                entries.append(entry)
    except OSError as err:
        out.problems.append(f"{prefix or '.'}: {err.strerror or err}")
        return
    entries.sort(key=lambda x: x.name)
    for e in entries:
        rel = f"{prefix}{e.name}"
        try:
            st = os.stat(e.name, dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            if e.name in skip_dirs or (skip_hidden and e.name.startswith(".")):
                continue
            if depth + 1 > max_depth:
                out.truncated = True
                continue
            try:
                sub = os.open(e.name, _DIR_FLAGS, dir_fd=dir_fd)
            except OSError:
                out.skip("other")
                continue
            try:
                yield from _walk(sub, rel + "/", depth + 1, out, budget, max_depth, skip_dirs, skip_hidden)
            finally:
                os.close(sub)
        elif stat.S_ISREG(st.st_mode):
            yield FileInfo(rel, st.st_size, st.st_mtime)
        else:
            out.skip(kind_of(st.st_mode))


def _open_dir(root: Path | str, under: str | None) -> int:
    """An fd of ``root`` (which the harness chose) or of its sub-folder ``under``, every step ``O_NOFOLLOW``."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    for name in _parts(under) if under else []:
        try:
            sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
        finally:
            os.close(fd)
        fd = sub
    return fd


def _parts(rel: str) -> list[str]:
    parts = [p for p in Path(rel).parts if p not in ("", ".")]
    if not parts or Path(rel).is_absolute() or ".." in parts:
        raise ValueError(f"{rel!r}: not a path inside the workspace")
    return parts


@contextmanager
def open_file(root: Path | str, rel: str) -> Iterator[int]:
    """A read-only fd of the regular file ``rel`` under ``root``, reached without following any link
    (every folder on the way opened ``O_NOFOLLOW``); OSError (ELOOP, ENOTDIR, EINVAL …) otherwise."""
    parts = _parts(rel)
    fds = [os.open(root, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))]
    try:
        for name in parts[:-1]:
            fds.append(os.open(name, _DIR_FLAGS, dir_fd=fds[-1]))
        fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=fds[-1])
        fds.append(fd)
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, f"not a regular file ({kind_of(mode)})", rel)
        os.set_blocking(fd, True)
        yield fd
    finally:
        for f in reversed(fds):
            os.close(f)


def read_bytes(root: Path | str, rel: str, cap: int) -> tuple[bytes, bool] | None:
    """``(the first cap bytes, truncated?)`` of a regular file of the workspace, else None."""
    try:
        with open_file(root, rel) as fd:
            chunks, left = [], cap + 1
            while left > 0:
                b = os.read(fd, min(left, 1 << 20))
                if not b:
                    break
                chunks.append(b)
                left -= len(b)
    except (OSError, ValueError):
        return None
    data = b"".join(chunks)
    return data[:cap], len(data) > cap


def read_text(root: Path | str, rel: str, cap: int) -> str | None:
    got = read_bytes(root, rel, cap)
    return None if got is None else got[0].decode("utf-8", "replace")


def sha256(root: Path | str, rel: str, cap: int) -> str:
    """sha256 of a regular file up to ``cap`` bytes (``""`` if larger, or not a regular file)."""
    h = hashlib.sha256()
    try:
        with open_file(root, rel) as fd:
            if os.fstat(fd).st_size > cap:
                return ""
            seen = 0
            while b := os.read(fd, 1 << 20):
                seen += len(b)
                if seen > cap:
                    return ""
                h.update(b)
    except (OSError, ValueError):
        return ""
    return h.hexdigest()


def is_file(root: Path | str, rel: str) -> bool:
    """Is ``rel`` a regular file of the workspace, reached without a link?"""
    try:
        with open_file(root, rel):
            return True
    except (OSError, ValueError):
        return False


def _glob_rx(pattern: str) -> re.Pattern[str]:
    """``pathlib`` glob semantics on a relative posix path: ``*``/``?``/``[…]`` stay within one name,
    ``**`` spans any number of folders (none included)."""
    out = ""
    segs = pattern.split("/")
    for n, seg in enumerate(segs):
        last = n == len(segs) - 1
        if seg == "**":
            out += ".*" if last else "(?:[^/]+/)*"
            continue
        i = 0
        while i < len(seg):
            c = seg[i]
            if c == "*":
                out += "[^/]*"
            elif c == "?":
                out += "[^/]"
            elif c == "[" and (j := seg.find("]", i + 2)) > 0:
                body = seg[i + 1:j]
                neg, body = body[0] in "!^", body.replace("\\", "\\\\").replace("[", "\\[")
                out += "[" + ("^" + body[1:] if neg else body) + "]"
                i = j
            else:
                out += re.escape(c)
            i += 1
        out += "" if last else "/"
    return re.compile(out)


def glob(root: Path | str, pattern: str, *, max_files: int = 10_000) -> list[str]:
    """Workspace-relative paths of the regular files that ``pattern`` names (no link followed, no
    absolute path, no ``..``), sorted."""
    try:
        _parts(pattern)
    except ValueError:
        return []
    if not any(c in pattern for c in "*?["):
        return [pattern] if is_file(root, pattern) else []
    rx = _glob_rx(pattern)
    return [f.rel for f in list_files(root, max_files=max_files).files if rx.fullmatch(f.rel)]


def inside(root: Path | str, path: Path | str) -> str | None:
    """``path`` as a workspace-relative posix path if it names something under ``root`` (without
    resolving links), else None."""
    try:
        rel = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
    except ValueError:
        return None
    s = rel.as_posix()
    return None if s in ("", ".") else s
