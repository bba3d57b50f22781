"""seatbelt (macOS ``sandbox-exec``): a profile generated from the same :class:`Policy` as bwrap.

Default allow, then deny: every file write outside the workspace, the writable paths and the
box's private temp dir; every read of a hidden path (the swarmgym root, ``$HOME``, the suites,
swarmgym's own code) except the read-only and writable paths named inside it; and, for checks,
all network.  Later rules win in SBPL, so the allows come after the denies.  Processes are
still swept by process group (macOS has no PID namespace).
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

from swarmgym.isolation.policy import Policy


def _q(path: Path | str) -> str:
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def profile(policy: Policy, private_tmp: Path | str | None = None) -> str:
    """The SBPL text for ``policy`` (``private_tmp``: the box's own temp dir, writable)."""
    devices = '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (regex #"^/dev/fd/"))'
    lines = ["(version 1)", "(allow default)", "(deny file-write*)", devices]
    rules = policy.rules()
    hidden = [p for p, k in rules if k == "hidden"]
    if hidden:
        lines.append("(deny file-read* file-write* " + " ".join(f"(subpath {_q(p)})" for p in hidden) + ")")
    ro = [p for p, k in rules if k == "ro"]
    if ro:
        lines.append("(allow file-read* " + " ".join(f"(subpath {_q(p)})" for p in ro) + ")")
    rw = [p for p, k in rules if k == "rw"] + ([Path(private_tmp)] if private_tmp else [])
    lines.append("(allow file-read* file-write* " + " ".join(f"(subpath {_q(p)})" for p in rw) + ")")
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
