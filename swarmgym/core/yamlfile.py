"""Reading a YAML file of settings or data: one mapping, or one line naming the file (and where it went wrong).

Suites, specs and mutants, ``config.yaml``, ``hosts.yaml`` and the simulator's fleet file are all read here, so
a broken file reads the same whichever one it is.  A file is parsed by libyaml when PyYAML has it (ten times
faster: a host loads every local suite when it starts); a broken one is parsed again by PyYAML's own parser,
whose complaint the one-line error quotes, so the message does not depend on how PyYAML was built.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from swarmgym.core.errors import SwarmgymError


def read_yaml(path: Path, error: type[SwarmgymError], *, empty_ok: bool = False) -> dict[str, Any]:
    """The mapping at the top of the YAML file ``path``; anything else raises ``error`` in one line: the file
    cannot be read, is not valid YAML (with the line and YAML's complaint), or is not a mapping (an empty file is
    ``{}`` when ``empty_ok``)."""
    try:
        text = path.read_text()
    except OSError as e:
        raise error(f"{path}: cannot read ({e.strerror})") from None
    try:
        data = yaml.load(text, Loader=_FAST)
    except yaml.YAMLError:
        data = _slow_load(path, text, error)
    if empty_ok and not data:
        return {}
    if not isinstance(data, dict):
        raise error(f"{path}: expected a mapping at the top level")
    return data


_FAST: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _slow_load(path: Path, text: str, error: type[SwarmgymError]) -> Any:
    """``text`` parsed by PyYAML's pure-Python parser: its complaint about a broken file, in one line."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None)
        raise error(f"{path}{':%d' % (mark.line + 1) if mark else ''}: not valid YAML"
                    + (f" ({problem})" if isinstance(problem, str) else "")) from None


def invalid(path: Path, err: ValidationError, at: tuple[str | int, ...] = ()) -> str:
    """One line for pydantic's first complaint about (part ``at`` of) the file ``path``: the file and the key."""
    e = err.errors()[0]
    loc = ".".join(str(x) for x in (*at, *e["loc"]))
    if e["type"] == "extra_forbidden":
        return f"{path}: unknown key {loc!r}"
    msg = e["msg"].removeprefix("Value error, ")
    return f"{path}: {loc or 'top level'}: {msg}"
