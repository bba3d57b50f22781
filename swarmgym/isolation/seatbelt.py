"""seatbelt (macOS ``sandbox-exec``): a profile generated from the same :class:`Policy` as bwrap.

Deny by default for files: every read and write is denied, then allowed for the system's runtime
(:func:`swarmgym.isolation.allowlist.darwin_paths`, less Homebrew's service state ``var/``), the standard devices, and the policy's paths in
mount order — read-only paths, carve-outs (denied again), writable paths (the workspace, goose's
per-job state, the box's private temp dir).  Later rules win in SBPL, and deeper paths come later,
so the most specific path wins as in bwrap.  ``file-read-metadata`` (``stat``) stays allowed
everywhere: programs resolve paths component by component; it shows that a name exists, never
what a file holds.  The network (:func:`network_rules`): checks get ``(deny network*)``; the swarm too,
then outbound TCP to its model endpoints only — ``localhost:PORT`` for a loopback endpoint, ``*:PORT``
for another host (SBPL names no other host; the resolver's socket is allowed for its name) — and Unix
sockets inside its private temp dir; no listening socket outside it, so two jobs never meet.  The
swarm cannot ask the keychain (``com.apple.SecurityServer``): goose's keyring secrets stay out.
Processes are swept by process group (macOS has no PID namespace).
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

from swarmgym.isolation.allowlist import DARWIN_DENIED, darwin_paths
from swarmgym.isolation.endpoints import LOOPBACK_NAMES
from swarmgym.isolation.policy import Policy

RESOLVER = "/private/var/run/mDNSResponder"
KEYCHAIN_SERVICES = ("com.apple.SecurityServer", "com.apple.securityd")


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
    return "\n".join([*lines, *network_rules(policy, private_tmp)]) + "\n"


def network_rules(policy: Policy, private_tmp: Path | str | None = None) -> list[str]:
    """The profile's network rules: none for the host's network, else deny all, then (the swarm) its
    endpoints and its own Unix sockets."""
    if policy.network:
        return []
    out = ["(deny network*)"]
    if policy.purpose != "swarm":
        return out
    remote = []
    for r in policy.routes:
        ep = r.endpoint
        local = ep.host.lower() in LOOPBACK_NAMES or ep.host.startswith("127.") or ep.host == "::1"
        remote.append(f'(remote tcp "{"localhost" if local else "*"}:{ep.port}")')
    if remote:
        out.append("(allow network-outbound " + " ".join(dict.fromkeys(remote)) + ")")
    if any(not s.startswith('(remote tcp "localhost') for s in remote):
        out.append(f"(allow network-outbound (remote unix-socket (path-literal {_q(RESOLVER)})))")
    if private_tmp:
        out.append(f"(allow network-bind network-outbound network-inbound (local unix-socket (subpath {_q(private_tmp)})) "
                   f"(remote unix-socket (subpath {_q(private_tmp)})))")
    out.append("(deny mach-lookup " + " ".join(f'(global-name "{n}")' for n in KEYCHAIN_SERVICES) + ")")
    return out


class SeatbeltBackend:
    name = "seatbelt"

    def available(self) -> str | None:
        if sys.platform != "darwin":
            return "sandbox-exec exists only on macOS"
        if shutil.which("sandbox-exec") is None:
            return "sandbox-exec not found on PATH"
        return None

    def wrap(self, argv: list[str], policy: Policy, private_tmp: Path | str | None = None, *,
             options: tuple[str, ...] = ()) -> list[str]:
        return ["sandbox-exec", "-p", profile(policy, private_tmp), *argv]
