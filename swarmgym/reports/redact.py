"""Keep secrets out of everything written: values of secret env vars are replaced by a marker.

A secret is an env var whose name holds KEY, TOKEN, SECRET or PASSWORD (or a configured name);
its value is replaced wherever it appears in any string, and an env-style key (``FOO_API_KEY``)
in any mapping has its value replaced outright.
"""
from __future__ import annotations

import os
import re
from typing import Any, Iterable, Mapping

from swarmgym.secrets import is_secret_name

MIN_SECRET_LEN = 4  # shorter values ("1", "on") would blank out ordinary text
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


def secret_values(environ: Mapping[str, str] | None = None, extra: Iterable[str] = ()) -> dict[str, str]:
    """{secret value: env var name}, longest values first so overlapping secrets redact fully."""
    env = os.environ if environ is None else environ
    names = frozenset(extra)
    found = {v: k for k, v in env.items() if is_secret_name(k, names) and v and len(v) >= MIN_SECRET_LEN}
    return dict(sorted(found.items(), key=lambda kv: -len(kv[0])))


def redact_text(text: str, secrets: Mapping[str, str]) -> str:
    for value, name in secrets.items():
        if value in text:
            text = text.replace(value, f"[redacted:{name}]")
    return text


def redact(obj: Any, secrets: Mapping[str, str], extra: Iterable[str] = ()) -> Any:
    """A copy of a JSON-like structure with every secret value replaced."""
    names = frozenset(extra)
    if isinstance(obj, str):
        return redact_text(obj, secrets) if secrets else obj
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
