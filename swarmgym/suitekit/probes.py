"""The ``probe:`` mapping of a ``kind: probe`` check (a structural check of the app), as suite data.

``type`` picks the probe; each type takes its own keys (:data:`PROBE_KEYS`: required, then optional) and
refuses the others, so a typo in a suite is a one-line load error.  The grading side is
:mod:`swarmgym.grading.kinds.probe`; docs/checks.md describes every type.
"""
from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

ProbeType = Literal["stdlib_only", "layout", "imports", "pure", "api", "sql_owner", "file_owner", "pytest"]
PROBE_TYPES: tuple[str, ...] = get_args(ProbeType)
#: type -> (required keys, optional keys)
PROBE_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "stdlib_only": (("package",), ("allow",)),
    "layout": (("files",), ()),
    "imports": (("modules",), ()),
    "pure": (("module", "forbid"), ("package",)),
    "api": (("calls",), ()),
    "sql_owner": (("package", "owner", "runs"), ("db_created",)),
    "file_owner": (("package", "owner", "runs"), ("db_created", "db_json")),
    "pytest": ((), ("args", "min_tests")),
}
TX_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "END", "SAVEPOINT", "RELEASE")  # statements sql_owner ignores


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ApiCall(_Strict):
    """One call of an ``api`` probe: ``MODULE:ATTRIBUTE`` with ``args``/``kwargs``, and what it must give."""

    call: str
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    want: Any = None
    raises: str | None = None
    unordered: bool = False

    @model_validator(mode="before")
    @classmethod
    def _one_outcome(cls, data: Any) -> Any:
        if isinstance(data, dict) and ("want" in data) == ("raises" in data):
            raise ValueError(f"call {data.get('call')!r} needs exactly one of 'want' or 'raises'")
        return data

    @field_validator("call")
    @classmethod
    def _module_attr(cls, v: str) -> str:
        mod, _, attr = v.partition(":")
        if not mod or not attr:
            raise ValueError(f"call {v!r} is not MODULE:ATTRIBUTE")
        return v

    def module(self) -> str:
        return self.call.partition(":")[0]

    def attribute(self) -> str:
        return self.call.partition(":")[2]


class Probe(_Strict):
    """What a ``kind: probe`` check probes (docs/checks.md, "probe")."""

    type: ProbeType
    package: str | None = None              # stdlib_only, pure (followed imports), sql_owner: the package folder
    allow: list[str] | None = None          # stdlib_only: more top-level names allowed
    files: list[str] | None = None          # layout: paths / globs that must each match a regular file
    modules: list[str] | None = None        # imports: dotted module names, each imported in one fresh process
    module: str | None = None               # pure: the module file (workspace-relative)
    forbid: list[str] | None = None         # pure: top-level module names it may not import
    calls: list[ApiCall] | None = None      # api: the calls, in order, in one process
    owner: str | None = None                # sql_owner / file_owner: the only file that may run SQL / touch {db}
    runs: list[list[str]] | None = None     # *_owner: argv of each `python3 -m PACKAGE` run ({db}, {dir})
    db_created: bool | None = None          # *_owner: {db} must exist afterwards (sql_owner: as a SQLite 3 file)
    db_json: bool | None = None             # file_owner: {db} must hold one JSON document afterwards
    args: list[str] | None = None           # pytest: extra arguments
    min_tests: int | None = None            # pytest: at least this many tests ran (default 1)

    @model_validator(mode="after")
    def _keys_for_type(self) -> Probe:
        required, optional = PROBE_KEYS[self.type]
        given = {k for k in type(self).model_fields if k != "type" and getattr(self, k) is not None}
        if missing := [k for k in required if k not in given]:
            raise ValueError(f"a {self.type} probe needs key {missing[0]!r}")
        if extra := sorted(given - set(required) - set(optional)):
            raise ValueError(f"a {self.type} probe takes no key {extra[0]!r} "
                             f"(it takes {', '.join(required + optional)})")
        if self.type in ("layout", "imports", "api", "sql_owner", "file_owner") \
                and not (self.files or self.modules or self.calls or self.runs):
            raise ValueError(f"a {self.type} probe needs at least one entry")
        for path in [self.package, self.module, self.owner, *(self.files or [])]:
            if path is not None and (path.startswith("/") or ".." in path.split("/") or not path):
                raise ValueError(f"probe path {path!r} must be relative to the workspace, without '..'")
        return self
