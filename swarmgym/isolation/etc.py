"""The box's ``/etc``: a private copy of the few entries a program needs, bound with one mount.

Binding each allowed file of ``/etc`` on its own costs a mount per file on every box start (about
20 of them, ~10 ms per box here); instead each swarmgym process keeps one copy of the allowed
entries (:data:`swarmgym.isolation.allowlist.LINUX_ETC`) and the box binds it at ``/etc``.  In the
copy, a link whose target the box can see (``/etc/localtime`` → ``/usr/share/zoneinfo/…``,
``/etc/alternatives/*`` → ``/usr/bin/…``, the certificate hashes) stays a link; a link leaving the
box's view (``/etc/resolv.conf`` → ``/run/…``) is copied as the file it points to; a folder named
``private`` (``/etc/ssl/private``: keys) is never copied, nor any file or folder others may not read
(a TLS key in ``/etc/ssl/redis/``, mode 0600: the box runs as the same user as swarmgym).  The copy is rebuilt when an entry of
``/etc`` changes (a new ``resolv.conf``; looked for at most every 30 s), and removed when the
process exits.
"""
from __future__ import annotations

import atexit
import functools
import glob
import os
import shutil
import stat
import tempfile
import threading
import time

_LOCK = threading.Lock()
_COPY: dict[str, object] = {}  # this process's current copy: its signature and folder
_MADE: list[tuple[int, str]] = []  # (pid, folder) of every copy made, removed at exit by the process that made it
SKIP = {"private"}
MAX_FILE = 4 << 20
RECHECK_SECS = 30.0  # how often a process looks for a changed /etc entry (a new resolv.conf)


@functools.lru_cache(maxsize=4)
def entries(names: tuple[str, ...]) -> list[str]:
    """The ``/etc`` paths of ``names`` (globs allowed) that exist here (looked up once per process)."""
    out: list[str] = []
    for name in names:
        for p in sorted(glob.glob(os.path.join("/etc", name))):
            if p not in out and os.path.exists(p):  # a dangling link has nothing to show
                out.append(p)
    return out


def _signature(paths: list[str]) -> tuple:
    sig: list[tuple | None] = []
    for p in paths:
        for stat_of in (os.lstat, os.stat):  # the entry, and what it points to
            try:
                st = stat_of(p)
                sig.append((st.st_mtime_ns, st.st_size, st.st_ino))
            except OSError:
                sig.append(None)
    return tuple(sig)


def _visible(target: str, visible: tuple[str, ...]) -> bool:
    return any(target == v or target.startswith(v.rstrip("/") + "/") for v in visible)


def _copy(src: str, dst: str, visible: tuple[str, ...]) -> None:
    if os.path.basename(src) in SKIP:
        return
    if os.path.islink(src):
        target = os.path.realpath(src)
        if _visible(target, visible):
            os.symlink(target, dst)
            return
    try:
        st = os.stat(src)
    except OSError:
        return
    if not st.st_mode & stat.S_IROTH or (stat.S_ISDIR(st.st_mode) and not st.st_mode & stat.S_IXOTH):
        return  # private to its owner or group (a TLS key in /etc/ssl/redis/): the box runs as this user
    if stat.S_ISDIR(st.st_mode):
        os.mkdir(dst)
        for name in sorted(os.listdir(src)):
            _copy(os.path.join(src, name), os.path.join(dst, name), visible)
        os.chmod(dst, stat.S_IMODE(st.st_mode))
    elif stat.S_ISREG(st.st_mode) and st.st_size <= MAX_FILE:
        try:
            shutil.copy2(src, dst)
        except OSError:
            pass  # unreadable here: not in the box either


def etc_copy(names: tuple[str, ...], visible: tuple[str, ...]) -> str:
    """A folder holding the allowed ``/etc`` entries as the box should see them (built once per
    process, rebuilt when one changes).  ``visible``: the runtime paths the box shows, where a link
    may point."""
    now = time.monotonic()
    with _LOCK:
        fresh = _COPY.get("pid") == os.getpid() and now - float(str(_COPY.get("checked", 0))) < RECHECK_SECS
        if fresh and os.path.isdir(str(_COPY.get("dir"))):
            return str(_COPY["dir"])
    paths = entries(names)
    sig = (os.getpid(), names, visible, _signature(paths))  # a forked child makes its own
    with _LOCK:
        if _COPY.get("sig") == sig and os.path.isdir(str(_COPY.get("dir"))):
            _COPY["checked"] = now
            return str(_COPY["dir"])
        new = tempfile.mkdtemp(prefix="swarmgym-etc-")
        os.chmod(new, 0o755)
        for p in paths:
            _copy(p, os.path.join(new, os.path.relpath(p, "/etc")), visible)
        if not any(pid == os.getpid() for pid, _ in _MADE):
            atexit.register(_remove)
        _MADE.append((os.getpid(), new))  # an older copy stays until exit: a running box may have it bound
        _COPY.update(sig=sig, dir=new, pid=os.getpid(), checked=now)
        return new


def _remove() -> None:
    for pid, folder in _MADE:
        if pid == os.getpid():
            shutil.rmtree(folder, ignore_errors=True)
