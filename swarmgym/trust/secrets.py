"""What counts as a secret: the rules that keep credentials away from model-written code and reports.

Secrets are never config keys; they live in the environment or ``.env``.  A variable is secret when
its name holds ``KEY``, ``TOKEN``, ``SECRET`` or ``PASSWORD``, has a word (between ``_``) that names
a credential (``AUTH``, ``PASS``, ``PWD``, ``CREDENTIALS``, ``PRIVATE``, ``COOKIE`` …: ``REDISCLI_AUTH``,
``MYSQL_PWD``, ``DB_PASS``), starts with a prefix that carries credentials without saying so (the
broker/result URLs, ``CELERY_*``, ``FLOWER_*``), is named in the config's ``secrets:`` list, or when
its value is a URL with a password or a user part (``https://TOKEN@host``).  Used by the check sandbox,
the swarm's environment and the report redactor; :func:`mask_url` is how a broker URL is shown.  Depends on
nothing else in swarmgym.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from swarmgym.config import Config

SECRET_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
# Words of a name (split at ``_``) that name a credential; ``PWD`` and ``OLDPWD`` alone are folders.
SECRET_WORDS = frozenset({"AUTH", "AUTHTOKEN", "PASS", "PASSWD", "PASSPHRASE", "PWD", "PW", "CREDENTIAL",
                          "CREDENTIALS", "CREDS", "PRIVATE", "COOKIE", "COOKIES", "BEARER", "APIKEY"})
NOT_SECRET = frozenset({"PWD", "OLDPWD"})

# Names that carry credentials without saying so: the broker URL may hold a password, Flower's
# basic auth is a login.  Matched as prefixes.
SECRET_NAME_PREFIXES = ("SWARMGYM_BROKER_URL", "SWARMGYM_RESULT_BACKEND", "SWARMGYM_QUEUE_BROKER_URL",
                        "SWARMGYM_QUEUE_RESULT_BACKEND", "CELERY_", "FLOWER_")
_URL_CREDENTIALS = re.compile(r"://[^/@\s]+@")  # any user part: a password, or a token as the user


def secret_names(cfg: Config | None = None) -> set[str]:
    """The extra secret names a config lists under ``secrets:``."""
    return set(cfg.secrets if cfg else [])


def is_secret_name(name: str, extra: set[str] | frozenset[str] = frozenset()) -> bool:
    up = name.upper()
    if up in NOT_SECRET and name not in extra:
        return False
    return (any(m in up for m in SECRET_MARKERS) or not SECRET_WORDS.isdisjoint(up.split("_"))
            or up.startswith(SECRET_NAME_PREFIXES) or name in extra)


def is_secret(name: str, value: str, extra: set[str] | frozenset[str] = frozenset()) -> bool:
    """A variable model-written code must not see: a secret-looking name, or a URL with a password."""
    return is_secret_name(name, extra) or bool(_URL_CREDENTIALS.search(value or ""))


def mask_url(url: str | None) -> str:
    """``redis://:s3cret@host:6379/0`` -> ``redis://:***@host:6379/0``; never print a password."""
    if not url:
        return ""
    try:
        parts = urlsplit(url)
    except ValueError:
        return re.sub(r"//[^@/]*@", "//***@", url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query, parts.fragment))
