"""The model endpoints a swarm's box may reach, and where each one answers inside the box.

The swarm's box has its own network namespace: only its loopback exists.  Each endpoint the job
needs (goose's pool endpoint, ``swarm.endpoints``, the local brain's URL) becomes a :class:`Route`:
a listener inside the box at the address the swarm already expects, relayed over a Unix socket to
the host-side forwarder (:mod:`swarmgym.isolation.forward`), which connects only to that endpoint.

Where the swarm expects its endpoint:

- a loopback address (``127.0.0.1``, ``::1``) or ``localhost``: the same address in the box
  (``localhost`` on both ``127.0.0.1`` and ``::1``);
- a host name (``studio.local``): a loopback address of its own (``127.66.0.N``), which the box's
  ``/etc/hosts`` gives that name — the swarm's config is unchanged;
- ``listen: HOST:PORT`` in the config overrides both (needed where the box side speaks plain HTTP
  to an ``https`` endpoint, so that the forwarder can add a key: the key is added on the host and
  TLS starts there).

An address outside the loopback given as a number (``192.168.1.20``) cannot be given to the box's
loopback: name the host instead, or give ``listen``.  Credentials never go in a URL: a key is named
by ``key_env`` and added by the forwarder on the host, so it never enters the box.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
MAPPED_PREFIX = "127.66.0."  # the box-side addresses given to named hosts, one each
DEFAULT_PORTS = {"http": 80, "https": 443}
KEYS = ("url", "key_env", "header", "listen")


@dataclass(frozen=True)
class Endpoint:
    """One model endpoint as configured: where the forwarder connects (``host:port``, TLS for
    ``https``), and optionally a key it adds to every request."""

    url: str
    host: str
    port: int
    tls: bool = False
    key_env: str | None = None  # the host variable (or goose secret) whose value the forwarder sends
    header: str = "authorization"  # authorization: "Bearer <key>"; any other header: the key itself
    listen: tuple[str, int] | None = None  # the box-side address, when not the url's own
    source: str = "swarm.endpoints"  # where it was named (for messages)

    @property
    def upstream(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def shown(self) -> str:
        """How a record names it: the upstream, and the box-side address when it differs."""
        base = f"{'https' if self.tls else 'http'}://{self.upstream}"
        return base + (f" (box: {_hostport(*self.listen)})" if self.listen else "")


@dataclass(frozen=True)
class Route:
    """An endpoint as the box sees it: a listener at ``listen_host:listen_port`` (and ``::1`` too for
    ``localhost``), ``name`` mapped to ``listen_host`` in the box's ``/etc/hosts``, relayed through
    the Unix socket ``sock`` (a file name in the forwarder's folder)."""

    endpoint: Endpoint
    listen_host: str
    listen_port: int
    sock: str
    name: str | None = None
    also_v6: bool = False
    key: str | None = field(default=None, repr=False)  # the key's value, host side only

    @property
    def listens(self) -> list[tuple[str, int]]:
        return [(self.listen_host, self.listen_port), *([("::1", self.listen_port)] if self.also_v6 else [])]

    @property
    def header(self) -> tuple[str, str] | None:
        """(name, value) the forwarder sets on every request, or None (bytes pass untouched)."""
        if self.key is None:
            return None
        name = self.endpoint.header
        return (name, f"Bearer {self.key}" if name.lower() == "authorization" else self.key)


def _hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _split_hostport(text: str, where: str) -> tuple[str, int]:
    parts = urlsplit("//" + text.strip())
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None or parts.path or parts.username:
        raise ValueError(f"{where}: expected HOST:PORT, got {text!r}")
    return parts.hostname, port


def parse_endpoint(value: str | Mapping, source: str = "swarm.endpoints") -> Endpoint:
    """An :class:`Endpoint` from a URL (``http://studio:1234/v1``, ``studio:1234``) or a mapping
    ``{url, key_env, header, listen}``; ValueError with one line naming what is wrong."""
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - set(KEYS))
        if unknown:
            raise ValueError(f"{source}: unknown key {unknown[0]!r} (expected {', '.join(KEYS)})")
        url = value.get("url")
        key_env, header, listen = value.get("key_env"), value.get("header") or "authorization", value.get("listen")
    else:
        url, key_env, header, listen = value, None, "authorization", None
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f"{source}: expected a URL such as http://127.0.0.1:1234, got {url!r}")
    text = url.strip()
    parts = urlsplit(text if "://" in text else "//" + text)
    scheme = parts.scheme or "http"
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"{source}: {text!r}: expected an http or https URL")
    if parts.username or parts.password:
        raise ValueError(f"{source}: {text!r} holds credentials; name the variable that holds the key "
                         "with key_env (the forwarder adds it on the host, so it never enters the box)")
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        raise ValueError(f"{source}: {text!r}: the port is not a number from 1 to 65535") from None
    if not parts.hostname:
        raise ValueError(f"{source}: {text!r}: no host")
    if key_env is not None and (not isinstance(key_env, str) or not key_env.strip()):
        raise ValueError(f"{source}: key_env must name an environment variable, got {key_env!r}")
    box = _split_hostport(listen, f"{source}: listen") if listen is not None else None
    if key_env and scheme == "https" and box is None:
        raise ValueError(f"{source}: {text!r} with key_env needs listen: HOST:PORT — the box speaks plain HTTP "
                         "to it and the forwarder adds the key and starts TLS on the host")
    return Endpoint(url=text, host=parts.hostname, port=port, tls=scheme == "https", key_env=key_env or None,
                    header=str(header), listen=box, source=source)


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def plan_routes(endpoints: Iterable[Endpoint]) -> list[Route]:
    """The box side of each endpoint (duplicates merged); ValueError when two endpoints would need the
    same box address, or an endpoint names an address outside the loopback by number."""
    routes: list[Route] = []
    names: dict[str, str] = {}
    taken: dict[tuple[str, int], Endpoint] = {}
    for ep in endpoints:
        host, port = ep.listen or (ep.host, ep.port)
        ip, name, v6 = _ip(host), None, False
        if ip is not None:
            if not ip.is_loopback:
                raise ValueError(f"{ep.source}: {ep.url!r} names {host} by number, outside the loopback: the "
                                 "swarm's box has only its own loopback; name the host (the box's /etc/hosts then "
                                 "maps it) or give listen: 127.0.0.1:PORT and point the swarm there")
            addr = str(ip)
        elif host.lower() in LOOPBACK_NAMES:
            addr, v6 = "127.0.0.1", True
        else:
            name = host.lower()
            addr = names.setdefault(name, f"{MAPPED_PREFIX}{len(names) + 2}")
        if port < 1 or port > 65535:
            raise ValueError(f"{ep.source}: {ep.url!r}: port {port} out of range")
        held = taken.get((addr, port))
        if held is not None:
            if _same_server(held, ep) and (held.key_env == ep.key_env or None in (held.key_env, ep.key_env)):
                at = next(i for i, r in enumerate(routes) if r.endpoint is held)  # one server named twice:
                keep = ep if ep.key_env and not held.key_env else held  # keep the one with its key
                routes[at] = replace(routes[at], endpoint=keep, also_v6=routes[at].also_v6 or v6)
                taken[(addr, port)] = keep
                continue
            raise ValueError(f"{ep.source}: {ep.url!r} and {held.source}: {held.url!r} would both answer at "
                             f"{_hostport(addr, port)} in the box; give one of them listen: HOST:PORT")
        taken[(addr, port)] = ep
        routes.append(Route(ep, addr, port, f"{len(routes)}.sock", name=name, also_v6=v6))
    return routes


def _same_server(a: Endpoint, b: Endpoint) -> bool:
    """Whether two endpoints are one server (``localhost`` and ``127.0.0.1`` are the host's loopback alike)."""
    return (_canon(a.host), a.port, a.tls) == (_canon(b.host), b.port, b.tls)


def _canon(host: str) -> str:
    ip = _ip(host)
    return "loopback" if (ip is not None and ip.is_loopback) or host.lower() in LOOPBACK_NAMES else host.lower()


def with_keys(routes: Iterable[Route], lookup: Mapping[str, str]) -> list[Route]:
    """``routes`` with each ``key_env``'s value (from ``lookup``: the host's environment, goose's
    secrets) attached for the forwarder; a key that is not set leaves requests untouched."""
    out = []
    for r in routes:
        name = r.endpoint.key_env
        value = lookup.get(name) if name else None
        out.append(replace(r, key=value) if value else r)
    return out


def hosts_file(routes: Iterable[Route]) -> str:
    """The box's ``/etc/hosts``: the loopback names, and each named endpoint host at its address."""
    lines = ["127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback"]
    seen: set[str] = set()
    for r in routes:
        if r.name and r.name not in seen:
            seen.add(r.name)
            lines.append(f"{r.listen_host}\t{r.name}")
    return "\n".join(lines) + "\n"


def needs_low_ports(routes: Iterable[Route]) -> bool:
    """Whether a listener sits below port 1024 (the box then keeps CAP_NET_BIND_SERVICE, which lets it
    bind low ports of its own network namespace, nothing else)."""
    return any(r.listen_port < 1024 for r in routes)
