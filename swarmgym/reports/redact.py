"""Keep secrets out of everything written: values of secret env vars are replaced by a marker.

A secret is an env var whose name holds KEY, TOKEN, SECRET or PASSWORD (or a configured name, or
a broker/Flower name), or whose value is a URL with a password; its value — and, for a URL, the
password part alone — is replaced wherever it appears in any string, and an env-style key
(``FOO_API_KEY``) in any mapping has its value replaced outright.  The password part of *any*
URL (``redis://:pw@host``, ``https://user:pw@host``) is replaced too, known secret or not.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from swarmgym.trust.secrets import is_secret, is_secret_name

MIN_SECRET_LEN = 4  # shorter values ("1", "on") would blank out ordinary text
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:]*:)(?P<pw>[^/@\s]+)(?=@)")


def secret_values(environ: Mapping[str, str] | None = None, extra: Iterable[str] = ()) -> dict[str, str]:
    """{secret value: env var name}, longest values first so overlapping secrets redact fully."""
    env = os.environ if environ is None else environ
    names = frozenset(extra)
    found = {v: k for k, v in env.items() if v and len(v) >= MIN_SECRET_LEN and is_secret(k, v, names)}
    for value, name in list(found.items()):
        for m in URL_PASSWORD.finditer(value):  # the password alone may show up elsewhere
            if len(m["pw"]) >= MIN_SECRET_LEN:
                found.setdefault(m["pw"], name)
    return dict(sorted(found.items(), key=lambda kv: -len(kv[0])))


def redact_text(text: str, secrets: Mapping[str, str]) -> str:
    for value, name in secrets.items():
        if value in text:
            text = text.replace(value, f"[redacted:{name}]")
    return URL_PASSWORD.sub(lambda m: m["head"] + "[redacted]", text) if "://" in text else text


def redact(obj: Any, secrets: Mapping[str, str], extra: Iterable[str] = ()) -> Any:
    """A copy of a JSON-like structure with every secret value replaced."""
    names = frozenset(extra)
    if isinstance(obj, str):
        return redact_text(obj, secrets)
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if isinstance(k, str) and _ENV_NAME.match(k) and is_secret_name(k, names) and isinstance(v, str) and v:
                out[k] = f"[redacted:{k}]"
            else:
                out[k] = redact(v, secrets, names)
        return out
    if isinstance(obj, (list, tuple)):
        return [redact(v, secrets, names) for v in obj]
    return obj
