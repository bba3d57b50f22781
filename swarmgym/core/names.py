"""The one check of a name a person gives a variant or a host: it becomes part of queue and worker names."""
from __future__ import annotations

import re

from swarmgym.core.errors import UsageError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")


def check_name(kind: str, value: str) -> str:
    """``value`` if it is 1-63 letters, digits, '.', '_' or '-' (starting with a letter or digit); else a one-line
    usage error naming ``--<kind>``."""
    if not _NAME.match(value or ""):
        raise UsageError(f"--{kind} {value!r}: expected letters, digits, '.', '_' or '-' (max 63)")
    return value
