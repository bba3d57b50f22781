"""Host keys: the secret each fleet host signs its results with, and the coordinator's keyring.

A host's key (32 random bytes, hex, one line; ``#`` lines are comments) lives in
``queue.host_key_file`` (``SWARMGYM_QUEUE_HOST_KEY_FILE``; default
``$XDG_CONFIG_HOME/swarmgym/host.key``, i.e. ``~/.config/swarmgym/host.key``).  The coordinator
trusts the hosts listed in ``queue.keyring_file`` (``SWARMGYM_QUEUE_KEYRING_FILE``; default
``~/.config/swarmgym/keyring``): one ``NAME HEXKEY`` line per host.  Both files are mode 0600 in a
0700 folder, outside the swarmgym home and the checkout: no box ever sees them (``$HOME`` and the home
are never bound into a box), and a key others can read is refused, as ssh refuses a readable private
key.  :mod:`swarmgym.trust.signing` signs and checks with them; ``swarmgym hosts key …`` manages them.
"""
from __future__ import annotations

import hashlib
import os
import secrets
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from swarmgym import REPO_ROOT
from swarmgym.core.atomic import atomic_write_bytes
from swarmgym.core.errors import ConfigError, UsageError
from swarmgym.isolation.allowlist import system_dirs
from swarmgym.isolation.policy import interpreter_dirs

if TYPE_CHECKING:
    from swarmgym.config import Config

KEY_BYTES = 32
_HEX = frozenset("0123456789abcdef")


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/swarmgym``, else ``~/.config/swarmgym``."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "swarmgym"


def host_key_path(cfg: Config) -> Path:
    return Path(cfg.queue.host_key_file).expanduser() if cfg.queue.host_key_file else config_dir() / "host.key"


def keyring_path(cfg: Config) -> Path:
    return Path(cfg.queue.keyring_file).expanduser() if cfg.queue.keyring_file else config_dir() / "keyring"


def fingerprint(key: bytes) -> str:
    """A short public name for a key (safe to print and to record)."""
    return "sha256:" + hashlib.sha256(key).hexdigest()[:16]


def box_visible(cfg: Config) -> list[tuple[str, Path]]:
    """(why, folder) for every folder a box reads: the system's runtime (``/usr`` — so ``/usr/local/etc``
    —, ``/etc/ssl`` …; ``/opt/homebrew`` on a Mac), the Python that runs checks and ``sandbox.read_only``."""
    return [*(("a folder every box reads", Path(d)) for d in system_dirs()),
            *(("the Python every box reads", d) for d in interpreter_dirs()),
            *(("sandbox.read_only", Path(d)) for d in cfg.sandbox.read_only)]


def check_outside(path: Path, cfg: Config) -> None:
    """Keys never live in the swarmgym home nor in swarmgym's own checkout (both are trees a person
    copies, commits or shares with a box), nor in any folder a box reads (:func:`box_visible`: a 0600
    file there is readable by the box, which runs as the same user)."""
    p = path.expanduser().resolve()
    for name, root in (("the swarmgym home", cfg.home), ("swarmgym's checkout", REPO_ROOT),
                       *box_visible(cfg)):
        r = Path(root).expanduser().resolve()
        if r != Path("/") and p.is_relative_to(r):
            raise ConfigError(f"{path}: a key file may not live in {name} ({root}); "
                              f"use {config_dir()} (the default) or another private folder")


def _check_mode(path: Path) -> None:
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        raise ConfigError(f"{path}: mode {mode:04o}, expected 0600 (chmod 600 {path}): a key others can "
                          "read is a key anyone can sign with")


def _parse_hex(text: str, where: str) -> bytes:
    t = text.strip().lower()
    if len(t) != 2 * KEY_BYTES or not set(t) <= _HEX:
        raise ConfigError(f"{where}: expected a key of {2 * KEY_BYTES} hex digits "
                          f"(swarmgym hosts key new writes one), got {len(t)} character(s)")
    return bytes.fromhex(t)


def read_key_file(path: Path) -> bytes:
    """The key in a host key file (mode 0600); ConfigError in one line when it is missing or bad."""
    try:
        _check_mode(path)
        lines = [x for x in path.read_text().splitlines() if x.strip() and not x.lstrip().startswith("#")]
    except FileNotFoundError:
        raise ConfigError(f"{path}: no host key (queue.host_key_file); create one with "
                          "`swarmgym hosts key new NAME` and trust it on the coordinator with "
                          "`swarmgym hosts key add NAME FILE`") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the host key: {e.strerror or e}") from None
    if len(lines) != 1:
        raise ConfigError(f"{path}: expected one line with the key, found {len(lines)}")
    return _parse_hex(lines[0], str(path))


def host_key(cfg: Config) -> bytes:
    return read_key_file(host_key_path(cfg))


def new_key_file(path: Path, host: str, *, force: bool = False) -> bytes:
    """Write a fresh random key to ``path`` (0600, its folder 0700); refuses to replace one unless ``force``."""
    if path.exists() and not force:
        raise UsageError(f"{path}: a host key exists already (--force replaces it; the coordinator must then "
                         "trust the new one)")
    key = secrets.token_bytes(KEY_BYTES)
    _private_dir(path.parent)
    atomic_write_bytes(path, f"# swarmgym host key of {host} ({fingerprint(key)}); keep it private\n{key.hex()}\n"
                       .encode(), mode=0o600)
    return key


def _private_dir(folder: Path) -> None:
    fresh = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    if fresh:
        os.chmod(folder, 0o700)


# --- the coordinator's keyring ------------------------------------------------------------

_CACHE: dict[str, tuple[tuple[int, int], dict[str, bytes]]] = {}
_LOCK = threading.Lock()


def read_keyring(path: Path) -> dict[str, bytes]:
    """host -> key of every trusted host; ConfigError (one line, file:line) when missing or bad.
    Parsed once per file version (mtime and size): a record costs a ``stat``."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no keyring (queue.keyring_file): the coordinator trusts no host; add "
                          "each with `swarmgym hosts key add NAME FILE`") from None
    stamp = (st.st_mtime_ns, st.st_size)
    with _LOCK:
        hit = _CACHE.get(str(path))
        if hit and hit[0] == stamp:
            return hit[1]
    _check_mode(path)
    ring: dict[str, bytes] = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ConfigError(f"{path}:{n}: expected `NAME HEXKEY`, got {len(parts)} field(s)")
        ring[parts[0]] = _parse_hex(parts[1], f"{path}:{n}")
    with _LOCK:
        _CACHE[str(path)] = (stamp, ring)
    return ring


def keyring(cfg: Config) -> dict[str, bytes]:
    return read_keyring(keyring_path(cfg))


def write_keyring(path: Path, ring: Mapping[str, bytes]) -> None:
    _private_dir(path.parent)
    body = "".join(f"{name} {key.hex()}\n" for name, key in sorted(ring.items()))
    atomic_write_bytes(path, ("# swarmgym keyring: the hosts whose results the coordinator accepts (NAME HEXKEY)\n"
                              + body).encode(), mode=0o600)


def trust(path: Path, host: str, key: bytes) -> bool:
    """Add (or replace) ``host``'s key in the keyring; True if it was new."""
    ring = dict(read_keyring(path)) if path.exists() else {}
    new = host not in ring
    ring[host] = key
    write_keyring(path, ring)
    return new


def distrust(path: Path, host: str) -> None:
    ring = dict(read_keyring(path))
    if host not in ring:
        raise UsageError(f"NAME {host!r}: not in the keyring {path} (known: {', '.join(sorted(ring)) or 'none'})")
    del ring[host]
    write_keyring(path, ring)
