"""What of the host system a box sees: the runtime a program needs, and nothing else.

Both boxes start from an empty root (bubblewrap) or deny every read (seatbelt) and get, read-only,
only the system's runtime listed here — programs, shared libraries, the loader's cache, TLS
certificates, the resolver's files, the user and group databases, the time zone — plus what the
policy names (:mod:`swarmgym.isolation.policy`: the Python that runs checks, the swarm binary, the
paths the config names).  Nothing else of the host exists inside the box: no ``/home``, ``/root``,
``/work``, ``/srv``, ``/opt``, ``/var``, ``/run``, no other file of ``/etc`` (``shadow``, ``ssh``,
``machine-id``, service configs).

On a merged-``/usr`` system ``/bin``, ``/sbin`` and ``/lib*`` are symlinks into ``/usr``: the box
gets the same symlinks, not second bind mounts.
"""
from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass

from swarmgym.isolation.etc import entries, etc_copy

#: programs and libraries (Linux); a symlink here (merged /usr) becomes the same symlink in the box
LINUX_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")

#: the few files of /etc a program needs: the loader, TLS, name resolution, users, time zone,
#: Debian's alternatives (``/usr/bin/awk`` → ``/etc/alternatives/awk``) and the system Python's config
LINUX_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "ssl", "ca-certificates", "ca-certificates.conf",
             "pki", "crypto-policies", "resolv.conf", "hosts", "host.conf", "nsswitch.conf", "gai.conf",
             "services", "protocols", "passwd", "group", "localtime", "timezone", "alternatives",
             "mime.types", "os-release", "python3", "python3.*")

#: macOS: the system, Homebrew, the dyld cache, and the same few files of /private/etc
DARWIN_DIRS = ("/usr", "/bin", "/sbin", "/System", "/Library/Apple", "/Library/Frameworks",
               "/Library/Preferences/Logging", "/opt/homebrew", "/private/var/db/dyld",
               "/private/var/db/timezone", "/Applications/Xcode.app", "/Library/Developer/CommandLineTools")
#: macOS: what a box may not read inside the runtime above: Homebrew's service state (a Homebrew
#: Redis keeps its dump and append-only file in ``var/db/redis``; databases and logs live there too)
DARWIN_DENIED = ("/opt/homebrew/var", "/usr/local/var")
DARWIN_ETC = ("hosts", "resolv.conf", "services", "protocols", "passwd", "group", "localtime", "ssl",
              "nsswitch.conf")


@dataclass(frozen=True)
class Mount:
    """One system path in the box: ``ro`` (bound read-only at the same path), ``symlink`` (to
    ``target``) or ``etc`` (the private copy at ``target``, bound at ``/etc``: :mod:`.etc`)."""

    path: str
    kind: str  # ro | symlink | etc
    target: str = ""


@functools.lru_cache(maxsize=1)
def linux_dirs() -> tuple[Mount, ...]:
    """The Linux runtime folders that exist here (looked up once per process)."""
    out: list[Mount] = []
    for d in LINUX_DIRS:
        if os.path.islink(d):
            out.append(Mount(d, "symlink", os.readlink(d)))
        elif os.path.isdir(d):
            out.append(Mount(d, "ro"))
    return tuple(out)


def linux_mounts() -> list[Mount]:
    """The Linux runtime, in mount order: the folders, then ``/etc`` (this process's private copy)."""
    dirs = linux_dirs()
    visible = tuple(m.path for m in dirs if m.kind == "ro")
    return [*dirs, Mount("/etc", "etc", etc_copy(LINUX_ETC, visible))]


def darwin_paths() -> list[str]:
    """What a seatbelt box may read of the macOS system (paths need not exist here: the profile
    is text, generated anywhere)."""
    return [*DARWIN_DIRS, *(f"/private/etc/{n}" for n in DARWIN_ETC)]


def system_dirs() -> list[str]:
    """The runtime paths a box of this platform shows (what a policy need not bind a second time)."""
    if sys.platform == "darwin":
        return darwin_paths()
    return [*(m.path for m in linux_dirs() if m.kind == "ro"), *entries(LINUX_ETC)]
