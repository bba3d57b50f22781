"""Signed results: the coordinator believes a ``record_job`` only if a host it knows signed it.

A host signs what it sends with its key (:mod:`swarmgym.trust.hostkeys`): HMAC-SHA256 over the canonical
JSON of

    {"v": 1, "host": <host>, "ts": <unix time>, "nonce": <16 random hex>,
     "result": sha256(canonical JSON of the JobResult), "artefacts": sha256(the run-folder bundle or "")}

and ships ``{"v", "host", "ts", "nonce", "hmac"}`` as the third argument of ``record_job``.  The
coordinator recomputes it with the key its keyring holds for the result's own ``host``.  The result
carries its job id, campaign id and the whole JobSpec, so a signature made for one job never fits
another (nor another campaign, nor another host's claim), and an edited verdict or run folder breaks
it.  What replaying a signed message can do is deliver that same host's true result for that same job
again: the ledger's unique job id makes that a no-op.  Broker credentials are not needed to forge
anything here — they are not what is trusted.

Why not Celery's message signing (``task_serializer='auth'``): it signs every message with X.509
certificates in every process (the CLI that enqueues too) and needs a certificate store on each; the
only message whose sender matters is ``record_job``, and a per-host HMAC key says exactly which host.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Mapping
from typing import Any

VERSION = 1


def wire_safe(obj: Any) -> Any:
    """``obj`` as it will arrive: kombu's JSON decoder turns an object whose keys are exactly
    ``__type__`` and ``__value__`` into a Python value (or refuses the whole message), so such an
    object — only a swarm would print one — gets a third key.  Everything else is unchanged, so the
    coordinator decodes exactly what the host signed, and no RunReport can make its own record
    undeliverable."""
    if isinstance(obj, dict):
        out = {k: wire_safe(v) for k, v in obj.items()}
        if out.keys() == {"__type__", "__value__"}:
            out["__escaped__"] = True
        return out
    if isinstance(obj, (list, tuple)):
        return [wire_safe(v) for v in obj]
    return obj


def canonical(obj: Any) -> bytes:
    """The one byte form of a JSON value: sorted keys, no spaces, UTF-8 (what crosses the broker is
    JSON, so the coordinator sees the same value the host signed)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=True).encode()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _message(result: Mapping[str, Any], bundle: str | None, host: str, ts: float, nonce: str) -> bytes:
    return canonical({"v": VERSION, "host": host, "ts": ts, "nonce": nonce, "result": _digest(canonical(result)),
                      "artefacts": _digest((bundle or "").encode())})


def sign(key: bytes, host: str, result: Mapping[str, Any], bundle: str | None = None,
         ts: float | None = None) -> dict[str, Any]:
    """The signature block a host sends with ``result`` (and its run-folder ``bundle``)."""
    ts = round(time.time() if ts is None else ts, 3)
    nonce = secrets.token_hex(8)
    mac = hmac.new(key, _message(result, bundle, host, ts, nonce), hashlib.sha256).hexdigest()
    return {"v": VERSION, "host": host, "ts": ts, "nonce": nonce, "hmac": mac}


def refusal(keys: Mapping[str, bytes], result: Mapping[str, Any], bundle: str | None, sig: Any) -> str | None:
    """Why ``result`` is not signed by the host it names (None: it is)."""
    host = result.get("host")
    if not sig:
        return f"unsigned result (claims host {host!r}): only results signed with a host key are accepted"
    if not isinstance(sig, dict) or sig.get("v") != VERSION or not isinstance(sig.get("hmac"), str):
        return f"malformed signature block from {host!r} (expected v{VERSION} with an hmac)"
    if sig.get("host") != host:
        return f"signature made for host {sig.get('host')!r}, but the result claims host {host!r}"
    key = keys.get(str(host))
    if key is None:
        return f"host {host!r} is not in the coordinator's keyring (swarmgym hosts key add {host} FILE)"
    try:
        msg = _message(result, bundle, str(host), float(sig["ts"]), str(sig["nonce"]))
    except (KeyError, TypeError, ValueError):
        return f"malformed signature block from {host!r} (ts, nonce)"
    want = hmac.new(key, msg, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(want, sig["hmac"]):
        return (f"bad signature for host {host!r}: not made with its key over this result and run folder "
                "(forged, altered, or replayed from another job)")
    return None
