"""One policy object per box: what untrusted code may write, read, reach and use.

Every backend (bubblewrap, seatbelt, none) is built from a :class:`Policy`.  The rule for paths
is "the most specific path wins": a writable workspace inside the hidden swarmgym root stays
writable, a read-only venv inside a hidden repo stays readable.  Two builders exist — one for a
golden check (no network, only the workspace writable) and one for the swarm (network allowed,
the workspace plus goose's own state folders writable).
"""
from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

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
    """What a box allows.  Paths are absolute and resolved; missing ones are skipped by backends."""

    workspace: Path
    writable: tuple[Path, ...] = ()  # besides the workspace and the private /tmp
    read_only: tuple[Path, ...] = ()  # re-exposed (read-only) inside hidden paths
    hidden: tuple[Path, ...] = ()  # replaced by an empty tmpfs (bwrap) / denied (seatbelt)
    network: bool = False
    limits: Limits | None = field(default_factory=Limits)  # rlimits; None: none (the swarm)
    max_procs: int = 512  # processes alive at once in the box (pids cgroup), enforced even for root
    purpose: str = "check"  # check | swarm (only for messages)

    def rules(self) -> list[tuple[Path, str]]:
        """(path, hidden|ro|rw) in mount order: shallow first, so the most specific path wins."""
        rank = {"hidden": 0, "ro": 1, "rw": 2}
        items = [(p, "hidden") for p in self.hidden] + [(p, "ro") for p in self.read_only]
        items += [(p, "rw") for p in (*self.writable, self.workspace)]
        seen: dict[Path, str] = {}
        covered = (*self.hidden, Path("/tmp"))
        for p, kind in items:
            if kind == "ro" and not any(p.is_relative_to(h) for h in covered):
                continue  # already visible read-only with the rest of the system
            if p not in seen or rank[kind] > rank[seen[p]]:
                seen[p] = kind
        return sorted(seen.items(), key=lambda pk: (len(pk[0].parts), rank[pk[1]], str(pk[0])))


def _real(paths: Iterable[str | Path | None]) -> tuple[Path, ...]:
    out: list[Path] = []
    for p in paths:
        if p:
            rp = Path(p).expanduser().resolve()
            if rp != Path("/") and rp not in out:
                out.append(rp)
    return tuple(out)


def install_dirs() -> list[Path]:
    """Where swarmgym's own code is installed (the package folders, not the venv)."""
    import swarmgym

    here = Path(swarmgym.__file__).resolve().parent
    dirs = [here]
    workers = here.parent / "workers"
    if (workers / "tasks.py").is_file():
        dirs.append(workers)
    return dirs


def interpreter_dirs() -> list[Path]:
    """The Python that runs checks (``python3``/``pytest`` resolve to it): readable in every box."""
    return [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent]


def secret_dirs(cfg, env: Mapping[str, str] | None = None) -> list[Path]:
    """Hidden from every box: the swarmgym root, $HOME, the suites and swarmgym's own code."""
    env = os.environ if env is None else env
    homes = {env.get("HOME") or "", os.path.expanduser("~"), _pw_home()}
    return [Path(cfg.home), *(Path(h) for h in sorted(homes) if h), Path(cfg.suites_dir), *install_dirs()]


def _pw_home() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):
        return ""


def check_policy(cfg, workspace: str | Path, limits: Limits | None = None) -> Policy:
    """A golden check: no network, writable only the workspace and a private /tmp."""
    lim = limits or Limits.from_config(cfg.checks)
    return Policy(workspace=Path(workspace).resolve(), hidden=_real(secret_dirs(cfg)),
                  read_only=_real([*interpreter_dirs(), *cfg.sandbox.read_only]), network=False,
                  limits=lim, max_procs=lim.max_procs, purpose="check")


def swarm_policy(cfg, workspace: str | Path, *, read_only: Iterable[str | Path] = (),
                 writable: Iterable[str | Path] = ()) -> Policy:
    """The swarm: network allowed; writable the workspace and what the adapter names (goose state);
    the swarmgym root, $HOME and the suites (the golden checks) hidden."""
    rw = _real(writable)
    for p in rw:
        p.mkdir(parents=True, exist_ok=True)
    mine = _real(install_dirs())  # swarmgym's own code is no secret to the swarm (the sim runs it), even under /tmp
    return Policy(workspace=Path(workspace).resolve(), hidden=tuple(p for p in _real(secret_dirs(cfg)) if p not in set(mine)),
                  read_only=_real([*interpreter_dirs(), *mine, *read_only, *cfg.sandbox.read_only]), writable=rw,
                  network=True, limits=swarm_limits(cfg), max_procs=cfg.sandbox.swarm_max_procs, purpose="swarm")


def swarm_limits(cfg) -> Limits:
    """The swarm's rlimits: only processes and file size are bounded (memory and CPU are its job)."""
    return Limits(memory_mb=UNBOUNDED, cpu_secs=UNBOUNDED, max_procs=cfg.sandbox.swarm_max_procs,
                  file_size_mb=cfg.sandbox.swarm_file_size_mb)
