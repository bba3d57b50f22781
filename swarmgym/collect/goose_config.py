"""goose's config folder as a job gets it: what goose needs to run, never a secret.

Every swarm run starts from a copy of the operator's goose config folder (providers, the ``swarm:``
pool block, models).  The copy is made by :func:`job_files`, which leaves out

- goose's secret store and anything like it: ``secrets.yaml`` (goose keeps provider keys there when
  the OS keyring is off), an env file (``.env``, ``*.env``), a keyring or key file (``*keyring*``,
  ``*.key``, ``*.pem``, ``*.p12``), any file whose name says secret, key, token or password;
- inside every YAML or JSON file, each entry whose name says it holds a credential (``*_API_KEY``,
  ``GITHUB_TOKEN`` in an extension's ``envs``, …) and whose value is not a plain on/off switch
  (``GOOSE_DISABLE_KEYRING: true`` stays), and every value that is a URL with a user or password.

A file that is not valid YAML or JSON cannot be told clean and is refused with one line.  The
record's ``goose_config_hash`` is the hash of exactly this copy, so it says which config ran and
holds nothing derived from a secret.  Where a provider needs a key, the swarm's forwarder adds it on
the host (:func:`secret`: goose's own lookup order — the environment, then ``secrets.yaml``).

The pool endpoint is goose's ``swarm.endpoint`` (``SwarmConfig`` in goose local-edition
``crates/goose-cli/src/commands/swarm.rs``, default ``default_endpoint()`` =
``http://localhost:1234``); ``run_swarm`` sets ``LMSTUDIO_HOST`` from it.  Device ``host`` fields are
display only (``SwarmDevice``: "routing is by model_id"), so the endpoint is the only address goose
connects to.
"""
from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from swarmgym.core.errors import AdapterError
from swarmgym.trust.secrets import is_secret, is_secret_name

#: goose's pool endpoint when its config names none (``default_endpoint`` in goose's swarm.rs)
DEFAULT_ENDPOINT = "http://localhost:1234"
SECRET_SUFFIXES = (".env", ".key", ".pem", ".p12", ".pfx", ".keychain", ".keychain-db", ".kdbx", ".gpg", ".asc")
STRUCTURED = {".yaml": "yaml", ".yml": "yaml", ".json": "json"}


def is_secret_file(name: str) -> bool:
    """A file of goose's config folder that never goes into a job's copy."""
    low = name.lower()
    stem = low.split(".", 1)[0] if not low.startswith(".") else low[1:].split(".", 1)[0]
    return (low == ".env" or low.startswith(".env.") or low.endswith(SECRET_SUFFIXES)
            or "keyring" in low or is_secret_name(stem.replace("-", "_")))


def _clean(value: Any) -> tuple[Any, int]:
    """``value`` without credential entries; and how many were dropped."""
    if isinstance(value, dict):
        out, dropped = {}, 0
        for k, v in value.items():
            if isinstance(k, str) and is_secret_name(k) and not (v is None or isinstance(v, bool)):
                dropped += 1
                continue
            if isinstance(v, str) and is_secret("", v):
                dropped += 1
                continue
            out[k], n = _clean(v)
            dropped += n
        return out, dropped
    if isinstance(value, list):
        items, dropped = [], 0
        for v in value:
            if isinstance(v, str) and is_secret("", v):
                dropped += 1
                continue
            item, n = _clean(v)
            items.append(item)
            dropped += n
        return items, dropped
    return value, 0


def clean_bytes(rel: str, data: bytes) -> bytes:
    """``data`` of config file ``rel`` without credentials (unchanged bytes if it held none)."""
    kind = STRUCTURED.get(Path(rel).suffix.lower())
    if kind is None:
        return data
    try:
        parsed = yaml.safe_load(data) if kind == "yaml" else json.loads(data)
    except (yaml.YAMLError, ValueError, UnicodeDecodeError) as e:
        raise AdapterError(f"goose config file {rel}: not valid {kind.upper()} ({str(e).splitlines()[0][:120]}); "
                           "swarmgym copies goose's config into each job without its secrets and cannot tell "
                           "them apart in a file it cannot read — fix or remove it") from None
    cleaned, dropped = _clean(parsed)
    if not dropped:
        return data
    if kind == "json":
        return (json.dumps(cleaned, indent=2) + "\n").encode()
    return yaml.safe_dump(cleaned, sort_keys=False, allow_unicode=True).encode()


def job_files(config_dir: Path) -> Iterator[tuple[str, bytes]]:
    """(relative path, content) of every file of ``config_dir`` a job's copy holds, in path order:
    links followed, secret files left out, credential entries dropped."""
    for p in sorted(config_dir.rglob("*")):
        rel = p.relative_to(config_dir)
        if any(is_secret_file(part) for part in rel.parts) or not p.is_file():
            continue
        yield rel.as_posix(), clean_bytes(rel.as_posix(), p.read_bytes())


def copy_config(config_dir: Path, dest: Path) -> None:
    """Write the job's copy of ``config_dir`` (:func:`job_files`) into the new folder ``dest``."""
    dest.mkdir(parents=True)
    for rel, data in job_files(config_dir):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def pool_endpoint(config_dir: Path) -> str | None:
    """goose's ``swarm.endpoint`` in ``config_dir/config.yaml``, or None where it names none."""
    try:
        data = yaml.safe_load((config_dir / "config.yaml").read_text())
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return None
    block = data.get("swarm") if isinstance(data, dict) else None
    if isinstance(block, str):  # goose also accepts the block as a JSON/YAML string
        try:
            block = yaml.safe_load(block)
        except yaml.YAMLError:
            block = None
    value = block.get("endpoint") if isinstance(block, dict) else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def secret(name: str, config_dir: Path, env: Mapping[str, str]) -> str | None:
    """A provider key as goose looks it up (the environment, then its ``secrets.yaml``), for the
    host-side forwarder only."""
    if env.get(name):
        return env[name]
    try:
        data = yaml.safe_load((config_dir / "secrets.yaml").read_text())
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return None
    value = data.get(name) if isinstance(data, dict) else None
    return str(value) if value not in (None, "") else None
