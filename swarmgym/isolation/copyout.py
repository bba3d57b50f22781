"""Copy a folder out of a box that is still alive, as untrusted data, within a budget.

The swarm's writable folders live on size-capped tmpfs inside its box; when the swarm ends the host
copies each one from ``/proc/<box pid>/root/<path>`` to the host before the box (and its tmpfs) goes.
What the swarm left is hostile by assumption, so the walk goes through file descriptors with
``O_NOFOLLOW`` at every level (a link is copied as a link, never followed), copies only folders,
regular files and links (FIFOs, sockets and devices are skipped and counted), strips set-id bits,
stops at ``max_entries`` entries, and leaves out a file that would take the copy past ``max_bytes`` of
apparent size (a sparse file counts its full size: that is what every later reader would read).
"""
from __future__ import annotations

import errno
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_ENTRIES = 200_000
CHUNK = 1 << 20
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK


@dataclass
class Copied:
    files: int = 0
    bytes: int = 0
    entries: int = 0
    skipped: int = 0  # FIFOs, sockets, devices, entries that vanished or could not be read
    over_bytes: bool = False  # a file was left out: it would have taken the copy past max_bytes
    over_entries: bool = False  # stopped at max_entries


def copy_out(src: Path | str, dst: Path | str, *, max_bytes: int, max_entries: int = MAX_ENTRIES) -> Copied:
    """Copy the tree at ``src`` into the new folder ``dst`` (made here); never follows a link."""
    out = Copied()
    Path(dst).mkdir(parents=True)
    try:
        top = os.open(src, _DIR)
    except OSError:
        return out
    try:
        _walk(top, str(dst), out, max_bytes, max_entries)
    finally:
        os.close(top)
    return out


def _walk(dir_fd: int, dst: str, out: Copied, max_bytes: int, max_entries: int) -> None:
    try:
        with os.scandir(dir_fd) as it:
            names = [e.name for e in it]
    except OSError:
        return
    for name in names:
        if out.over_entries:
            return
        out.entries += 1
        if out.entries > max_entries:
            out.over_entries = True
            return
        target = os.path.join(dst, name)
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                os.symlink(os.readlink(name, dir_fd=dir_fd), target)
            elif stat.S_ISDIR(st.st_mode):
                sub = os.open(name, _DIR, dir_fd=dir_fd)
                try:
                    os.mkdir(target, 0o700)
                    _walk(sub, target, out, max_bytes, max_entries)
                    os.chmod(target, stat.S_IMODE(st.st_mode) & 0o777 | 0o700)
                finally:
                    os.close(sub)
            elif stat.S_ISREG(st.st_mode):
                if out.bytes + st.st_size > max_bytes:
                    out.over_bytes = True  # left out; the rest still fits
                    out.skipped += 1
                    continue
                _copy_file(dir_fd, name, target, st)
                out.files += 1
                out.bytes += st.st_size
            else:
                out.skipped += 1
        except OSError:
            out.skipped += 1


def _copy_file(dir_fd: int, name: str, target: str, st: os.stat_result) -> None:
    """Copy one regular file; only its data is read and written (a sparse file stays sparse)."""
    fd = os.open(name, _FILE, dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped since the stat
            raise OSError("not a regular file")
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            for start, end in _data_ranges(fd, st.st_size):
                pos = start
                while pos < end:
                    chunk = os.pread(fd, min(CHUNK, end - pos), pos)
                    if not chunk:
                        break
                    os.pwrite(out, chunk, pos)
                    pos += len(chunk)
            os.ftruncate(out, st.st_size)
        finally:
            os.close(out)
    finally:
        os.close(fd)
    os.chmod(target, stat.S_IMODE(st.st_mode) & 0o777)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))


def _data_ranges(fd: int, size: int) -> list[tuple[int, int]]:
    """The (start, end) ranges of ``fd`` that hold data (the whole file where holes cannot be asked)."""
    if not hasattr(os, "SEEK_DATA"):
        return [(0, size)]
    out: list[tuple[int, int]] = []
    pos = 0
    while pos < size:
        try:
            start = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError as e:  # ENXIO: only a hole is left; anything else: the file system cannot say
            return out if e.errno == errno.ENXIO or out else [(0, size)]
        end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
        out.append((start, end))
        pos = end
    return out


def replace_tree(fresh: Path, target: Path) -> None:
    """Put ``fresh`` where ``target`` is (``target``'s old content removed)."""
    old = target.with_name(target.name + ".swarmgym-old")
    if old.exists() or old.is_symlink():
        shutil.rmtree(old, ignore_errors=True)
    if target.exists() or target.is_symlink():
        target.rename(old)
    fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)
