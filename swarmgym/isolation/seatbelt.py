"""seatbelt (macOS ``sandbox-exec``): a profile generated from the same :class:`Policy` as bwrap.

Deny by default for files: every read and write is denied, then allowed for the system's runtime
(:func:`swarmgym.isolation.allowlist.darwin_paths`, less Homebrew's service state ``var/``), the standard devices, and the policy's paths in
mount order — read-only paths, carve-outs (denied again), writable paths (the workspace, goose's
per-job state, the box's private temp dir).  Later rules win in SBPL, and deeper paths come later,
so the most specific path wins as in bwrap.  ``file-read-metadata`` (``stat``) stays allowed
everywhere: programs resolve paths component by component; it shows that a name exists, never
what a file holds.  Checks also get ``(deny network*)``.  Processes are swept by process group
(macOS has no PID namespace).
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

from swarmgym.isolation.allowlist import DARWIN_DENIED, darwin_paths
from swarmgym.isolation.policy import Policy


def _q(path: Path | str) -> str:
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


DEVICES = ('(allow file-read* file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/random") '
           '(literal "/dev/urandom") (literal "/dev/tty") (literal "/dev/dtracehelper") (regex #"^/dev/fd/"))')


def profile(policy: Policy, private_tmp: Path | str | None = None) -> str:
    """The SBPL text for ``policy`` (``private_tmp``: the box's own temp dir, writable)."""
    system = darwin_paths()
    lines = ["(version 1)", "(allow default)", "(deny file-read* file-write*)", "(allow file-read-metadata)",
             "(allow file-read* " + " ".join(f"(subpath {_q(p)})" for p in system) + ")",
             "(deny file-read* file-write* " + " ".join(f"(subpath {_q(p)})" for p in DARWIN_DENIED) + ")", DEVICES]
    for path, kind in policy.rules(system):
        if kind == "ro":
            lines.append(f"(allow file-read* (subpath {_q(path)}))")
        elif kind == "hidden":
            lines.append(f"(deny file-read* file-write* (subpath {_q(path)}))")
        else:
            lines.append(f"(allow file-read* file-write* (subpath {_q(path)}))")
    if private_tmp:
        lines.append(f"(allow file-read* file-write* (subpath {_q(private_tmp)}))")
    if not policy.network:
        lines.append("(deny network*)")
    return "\n".join(lines) + "\n"


class SeatbeltBackend:
    name = "seatbelt"

    def available(self) -> str | None:
        if sys.platform != "darwin":
            return "sandbox-exec exists only on macOS"
        if shutil.which("sandbox-exec") is None:
            return "sandbox-exec not found on PATH"
        return None

    def wrap(self, argv: list[str], policy: Policy, private_tmp: Path | str | None = None) -> list[str]:
        return ["sandbox-exec", "-p", profile(policy, private_tmp), *argv]
