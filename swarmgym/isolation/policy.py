"""One policy object per box: what untrusted code may write, read, reach and use.

Every backend (bubblewrap, seatbelt, none) is built from a :class:`Policy`.  The rule for paths
is an allowlist: a box sees the system's runtime and the paths its policy names, nothing else;
where two rules nest, the most specific path wins (a workspace under a read-only folder stays
writable, an installed swarmgym inside a bound venv stays hidden).  Two builders exist — one for a
golden check (no network, only the workspace writable) and one for the swarm (a network of its own
reaching only its model endpoints, the workspace plus goose's own per-job state folder writable, each
on a disk of ``sandbox.workspace_mb``).  :data:`TRUSTED_ADAPTERS` says which swarms are swarmgym's own code.
"""
from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import swarmgym
from swarmgym.isolation.allowlist import system_dirs
from swarmgym.isolation.endpoints import Route

MB = 1024 * 1024
UNBOUNDED = 1 << 40  # an rlimit value that never binds (capped at the hard limit)


@dataclass(frozen=True)
class Limits:
    memory_mb: int = 2048
    cpu_secs: int = 300
    max_procs: int = 512
    file_size_mb: int = 256

    @classmethod
    def from_config(cls, checks) -> Limits:
        return cls(checks.memory_mb, checks.cpu_secs, checks.max_procs, checks.file_size_mb)


@dataclass(frozen=True)
class Policy:
    """What a box allows.  Paths are absolute and resolved; missing ones are skipped by backends.

    The box starts empty: it sees the system's runtime (:mod:`swarmgym.isolation.allowlist`), a
    private ``/tmp``, and exactly the paths named here.  ``hidden`` paths are carve-outs: where one
    lies inside a visible path (an installed swarmgym with its suites inside a bound venv), it is
    covered by an empty read-only tmpfs (bwrap) or denied (seatbelt); elsewhere it is not there anyway.
    """

    workspace: Path
    writable: tuple[Path, ...] = ()  # besides the workspace and the private /tmp
    read_only: tuple[Path, ...] = ()  # besides the system's runtime
    hidden: tuple[Path, ...] = ()  # never visible, even inside a read-only path
    network: bool = False  # the host's network (only the unboxed fallback of ``none``)
    routes: tuple[Route, ...] = ()  # model endpoints reachable through the forwarder (the swarm)
    disk_mb: int | None = None  # each writable folder a disk of this size while the box runs (the swarm)
    net_dir: Path | None = None  # per run (bwrap): the forwarder's Unix sockets, bound at /run/swarmgym/net
    hosts_file: Path | None = None  # per run (bwrap): the box's /etc/hosts (the endpoints' host names)
    limits: Limits | None = field(default_factory=Limits)  # rlimits; None: none (the swarm)
    max_procs: int = 512  # processes alive at once in the box (pids cgroup), enforced even for root
    ram_mb: int | None = None  # RAM + tmpfs pages of the whole box (memory cgroup); None: no cap
    tmpfs_mb: int = 512  # size of each tmpfs of the box (/tmp, /dev/shm)
    purpose: str = "check"  # check | swarm (only for messages)

    def rules(self, system: Iterable[Path | str] | None = None) -> list[tuple[Path, str]]:
        """(path, hidden|ro|rw) in mount order (shallow first), only those that change what the box
        sees: the most specific path wins, a path already visible the same way is skipped, and a
        hidden path counts only where a visible path holds it.  ``system``: the runtime paths the
        backend shows read-only (default: this platform's)."""
        if system is None:
            system = system_dirs()
        rank = {"hidden": 0, "ro": 1, "rw": 2}
        wanted: dict[Path, str] = {}
        for kind, paths in (("hidden", self.hidden), ("ro", self.read_only), ("rw", (*self.writable, self.workspace))):
            for p in paths:
                if p not in wanted or rank[kind] > rank[wanted[p]]:
                    wanted[p] = kind
        every = {str(s): "ro" for s in system}
        every.setdefault("/tmp", "tmp")
        every.update((str(p), k) for p, k in wanted.items())

        def around(p: str) -> str:  # the kind of the deepest other rule holding p
            holders = [a for a in every if a != p and p.startswith(a.rstrip("/") + "/")]
            return every[max(holders, key=len)] if holders else "none"

        out = []
        for p, kind in wanted.items():
            outer = around(str(p))
            if (kind == "hidden" and outer in ("ro", "rw")) or (kind != "hidden" and outer != kind):
                out.append((p, kind))
        return sorted(out, key=lambda pk: (len(pk[0].parts), rank[pk[1]], str(pk[0])))


def _real(paths: Iterable[str | Path | None]) -> tuple[Path, ...]:
    out: list[Path] = []
    for p in paths:
        if p:
            rp = _resolved(str(p))
            if rp != Path("/") and rp not in out:
                out.append(rp)
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def _resolved(path: str) -> Path:
    """``path`` absolute, ``~`` expanded, links resolved — once per process per path (a box starts per
    check: resolving the same dozen paths each time cost more than the box itself)."""
    return Path(path).expanduser().resolve()


#: Adapters whose swarm is swarmgym's own code — the one place that says so.  The simulator
#: (``sim``) plays the swarm by copying the suite's reference and mutant apps out of the suites and
#: running swarmgym's package; it builds nothing from a model, so it may read both.  Every other
#: adapter (``goose``, ``command``) runs model-written commands: its box never shows the suites,
#: swarmgym's package or checkout, and neither does any check's box.
TRUSTED_ADAPTERS = ("sim",)


def install_dirs() -> list[Path]:
    """Where swarmgym's own code is installed (the package folders, not the venv)."""
    return list(_install_dirs())


@functools.lru_cache(maxsize=1)
def _install_dirs() -> tuple[Path, ...]:
    here = Path(swarmgym.__file__).resolve().parent
    workers = here.parent / "workers"
    return (here, workers) if (workers / "tasks.py").is_file() else (here,)


@functools.lru_cache(maxsize=1)
def checkout_root() -> Path | None:
    """The source checkout swarmgym runs from (its ``.git``, ``tests/``, fixtures), or None when
    it is installed (then the package's parent is a site-packages folder, not a checkout)."""
    root = install_dirs()[0].parent
    return root if (root / ".git").exists() or (root / "pyproject.toml").is_file() else None


def interpreter_dirs() -> list[Path]:
    """The Python that runs checks (``python3``/``pytest`` resolve to it): readable in every box, with every
    site folder on its import path outside its prefixes (a ``.pth`` or ``PYTHONPATH`` naming another
    environment's packages: without them the box's Python and ``swarmgym-sim`` cannot import their
    dependencies). An installed swarmgym inside any of them stays hidden (:func:`secret_dirs`)."""
    dirs = [Path(sys.prefix), Path(sys.base_prefix), _resolved(sys.executable).parent.parent]
    extra = [p for p in _site_dirs_on_path() if not any(p.is_relative_to(d) for d in dirs)]
    return dirs + list(dict.fromkeys(extra))


def _site_dirs_on_path() -> list[Path]:
    """The ``site-packages``/``dist-packages`` folders on ``sys.path`` (never a checkout or the cwd)."""
    return [Path(p) for p in sys.path if p and Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]


#: where a Python keeps installed packages, below its prefix (venv, pyenv, Debian's system Python)
SITE_GLOBS = ("lib*/python3*/site-packages", "lib*/python3*/dist-packages", "lib*/python3/dist-packages")


def other_installs(roots: Iterable[Path | str] | None = None) -> list[Path]:
    """Every *other* installed swarmgym a box could read: one in the base Python of the venv that runs
    swarmgym, or in the system's ``/usr`` / ``/usr/local`` (``sudo pip install swarmgym``), carries
    ``swarmgym/suites`` — every reference app — inside a path every box binds."""
    base = (*interpreter_dirs(), Path("/usr"), Path("/usr/local")) if roots is None else tuple(roots)
    return list(_other_installs(tuple(str(r) for r in base)))


@functools.lru_cache(maxsize=8)
def _other_installs(roots: tuple[str, ...]) -> tuple[Path, ...]:
    found: list[Path] = []
    for root in roots:
        sites = [Path(root)] if Path(root).name in ("site-packages", "dist-packages") else []
        for site in sites + [s for pattern in SITE_GLOBS for s in Path(root).glob(pattern)]:
            pkg = site / "swarmgym"
            if pkg.is_dir() and not pkg.is_symlink():
                rp = pkg.resolve()
                if rp not in found:
                    found.append(rp)
    return tuple(found)


def secret_dirs(cfg, env: Mapping[str, str] | None = None) -> list[Path]:
    """Never shown to an untrusted box, even inside a visible path: the swarmgym root (ledger, runs,
    other workspaces, ``.env``), ``$HOME``, the suites, swarmgym's package and its checkout, and any
    other installed swarmgym in a bound Python or the system (:func:`other_installs`)."""
    env = os.environ if env is None else env
    homes = {env.get("HOME") or "", os.path.expanduser("~"), _pw_home()}
    repo = checkout_root()
    return [Path(cfg.home), *(Path(h) for h in sorted(homes) if h), Path(cfg.suites_dir), *install_dirs(),
            *([repo] if repo else []), *other_installs()]


def trusted_dirs(cfg) -> list[Path]:
    """What a trusted adapter's swarm reads besides the runtime: swarmgym's package and the suites."""
    return [*install_dirs(), Path(cfg.suites_dir)]


def _pw_home() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):
        return ""


def check_policy(cfg, workspace: str | Path, limits: Limits | None = None) -> Policy:
    """A golden check: no network; reads the runtime, the Python that runs checks and
    ``sandbox.read_only``; writes only the workspace and a private /tmp."""
    lim = limits or Limits.from_config(cfg.checks)
    return Policy(workspace=Path(workspace).resolve(), hidden=_real(secret_dirs(cfg)),
                  read_only=_real([*interpreter_dirs(), *cfg.sandbox.read_only]), network=False,
                  limits=lim, max_procs=lim.max_procs, ram_mb=cfg.checks.ram_mb, tmpfs_mb=cfg.checks.tmpfs_mb,
                  purpose="check")


def swarm_policy(cfg, workspace: str | Path, *, adapter: str, read_only: Iterable[str | Path] = (),
                 writable: Iterable[str | Path] = (), routes: Iterable[Route] = ()) -> Policy:
    """The swarm: a network of its own that reaches only ``routes`` (its model endpoints); reads the
    runtime, the Python, the swarm binary, what the adapter and ``sandbox.read_only`` name; writes the
    workspace and the adapter's state folders (goose's, fresh per job), each a disk of
    ``sandbox.workspace_mb``.  A trusted adapter (:data:`TRUSTED_ADAPTERS`) also reads swarmgym's package
    and the suites; for any other the secret paths stay hidden even inside what it may read."""
    rw = _real(writable)
    for p in rw:
        p.mkdir(parents=True, exist_ok=True)
    trusted = adapter in TRUSTED_ADAPTERS
    extra = _real(trusted_dirs(cfg)) if trusted else ()
    hidden = tuple(p for p in _real(secret_dirs(cfg)) if p not in set(extra))
    return Policy(workspace=Path(workspace).resolve(), hidden=hidden,
                  read_only=_real([*interpreter_dirs(), *extra, *read_only, *cfg.sandbox.read_only]), writable=rw,
                  routes=tuple(routes), disk_mb=cfg.sandbox.workspace_mb, limits=swarm_limits(cfg),
                  max_procs=cfg.sandbox.swarm_max_procs,
                  ram_mb=cfg.sandbox.swarm_ram_mb, tmpfs_mb=cfg.sandbox.swarm_tmpfs_mb, purpose="swarm")


def swarm_limits(cfg) -> Limits:
    """The swarm's rlimits: only processes and file size are bounded (its RAM by the memory cgroup)."""
    return Limits(memory_mb=UNBOUNDED, cpu_secs=UNBOUNDED, max_procs=cfg.sandbox.swarm_max_procs,
                  file_size_mb=cfg.sandbox.swarm_file_size_mb)
