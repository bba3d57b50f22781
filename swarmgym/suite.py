"""Suites as data: ``suites/<name>/suite.yaml`` plus reference apps and mutants.

Layout of a suite folder::

    suites/<name>/suite.yaml                 specs: prompts, hard prompts, checks
    suites/<name>/suite.lock                 the expected content hash (frozen suites)
    suites/<name>/apps/<slug>/reference/     a clean implementation: must pass every check
    suites/<name>/apps/<slug>/mutants/<m>/   mutant.yaml {description, targets[]} + files
                                             overlaid on the reference (realistic failures)

The suite hash covers only the canonical prompts and checks: editing either makes a new suite.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from swarmgym.errors import SuiteError

CHECK_KINDS = ("command_succeeds", "file_exists", "file_contains", "file_matches", "tool_called")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Check(_Strict):
    """One golden check. Which fields apply depends on ``kind``."""

    name: str
    kind: Literal["command_succeeds", "file_exists", "file_contains", "file_matches", "tool_called"]
    run: str | None = None          # command_succeeds: bash command run in the workspace
    path: str | None = None         # file_*: path or glob relative to the workspace
    text: str | None = None         # file_contains: literal substring
    pattern: str | None = None      # file_matches: regular expression (re.search, MULTILINE)
    tool: str | None = None         # tool_called: tool name (a suffix after '__' matches too)
    hard_only: bool = False         # only graded on the extreme tier (hard prompt)
    timeout: float | None = None    # per-check override of checks.timeout
    description: str = ""

    @model_validator(mode="after")
    def _fields_for_kind(self) -> "Check":
        need = {"command_succeeds": ["run"], "file_exists": ["path"], "file_contains": ["path", "text"],
                "file_matches": ["path", "pattern"], "tool_called": ["tool"]}[self.kind]
        missing = [f for f in need if not getattr(self, f)]
        if missing:
            raise ValueError(f"check {self.name!r} of kind {self.kind} needs key {missing[0]!r}")
        return self


class Spec(_Strict):
    id: str
    app_slug: str
    language: str = "python"
    archetype: str = ""
    prompt: str
    hard_prompt: str
    checks: list[Check]

    def checks_for(self, hard: bool) -> list[Check]:
        return [c for c in self.checks if hard or not c.hard_only]

    def prompt_for(self, hard: bool) -> str:
        return self.hard_prompt if hard else self.prompt


class Suite(_Strict):
    name: str
    description: str = ""
    specs: list[Spec]
    root: Path | None = Field(None, exclude=True)

    @property
    def hash(self) -> str:
        return suite_hash(self)

    def spec(self, key: str) -> Spec:
        for s in self.specs:
            if key in (s.id, s.app_slug):
                return s
        known = ", ".join(f"{s.id} ({s.app_slug})" for s in self.specs)
        raise SuiteError(f"suite {self.name}: no spec {key!r}; known: {known}")

    @property
    def folder(self) -> Path:
        """The suite's folder (set by :func:`load_suite`)."""
        if self.root is None:
            raise SuiteError(f"suite {self.name}: not loaded from a folder")
        return self.root

    def reference_dir(self, spec: Spec) -> Path:
        return self.folder / "apps" / spec.app_slug / "reference"

    def mutants(self, spec: Spec) -> list["Mutant"]:
        base = self.folder / "apps" / spec.app_slug / "mutants"
        return [load_mutant(d) for d in sorted(base.iterdir()) if d.is_dir()] if base.is_dir() else []


class Mutant(_Strict):
    name: str
    description: str
    targets: list[str]
    failure: str = "liar"
    delete: list[str] = Field(default_factory=list)  # reference files the mutant removes
    dir: Path = Field(exclude=True)


def canonical(suite: Suite) -> str:
    """The bytes the hash covers: prompts and checks, sorted keys, no whitespace games.

    Unset optional fields (None) are left out, so adding a new optional check field to the
    loader later does not change the hash of every suite already frozen.
    """
    body = {"name": suite.name, "specs": [s.model_dump(mode="json", exclude_none=True) for s in suite.specs]}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def suite_hash(suite: Suite) -> str:
    return "sha256:" + hashlib.sha256(canonical(suite).encode()).hexdigest()[:16]


def _fail(path: Path, err: ValidationError) -> SuiteError:
    e = err.errors()[0]
    loc = ".".join(str(x) for x in e["loc"])
    if e["type"] == "extra_forbidden":
        return SuiteError(f"{path}: unknown key {loc!r}")
    if e["type"] == "literal_error" and loc.endswith("kind"):
        return SuiteError(f"{path}: {loc}: unknown check kind {e.get('input')!r}; expected one of {', '.join(CHECK_KINDS)}")
    msg = e["msg"].removeprefix("Value error, ")
    return SuiteError(f"{path}: {loc or 'top level'}: {msg}")


def _read_yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as e:
        raise SuiteError(f"{path}: cannot read ({e.strerror})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise SuiteError(f"{path}{':%d' % (mark.line + 1) if mark else ''}: not valid YAML") from None
    if not isinstance(data, dict):
        raise SuiteError(f"{path}: expected a mapping at the top level")
    return data


def packaged_suites_dir() -> Path:
    """The suites shipped with swarmgym: ``swarmgym/suites`` inside an installed wheel, the repo's
    ``suites/`` folder in a source checkout or an editable install."""
    pkg = Path(__file__).resolve().parent
    installed = pkg / "suites"
    return installed if installed.is_dir() else pkg.parent / "suites"


def load_suite(name_or_path: str | Path, suites_dir: Path | None = None) -> Suite:
    """Load a suite by name (from ``suites_dir``, default the packaged suites) or by folder / suite.yaml path."""
    p = Path(name_or_path)
    if not p.exists():
        p = Path(suites_dir or packaged_suites_dir()) / str(name_or_path)
    path = p / "suite.yaml" if p.is_dir() else p
    if not path.is_file():
        raise SuiteError(f"{path}: no such suite file (suite {name_or_path!r})")
    data = _read_yaml(path)
    try:
        suite = Suite.model_validate({**data, "root": path.parent})
    except ValidationError as e:
        raise _fail(path, e) from None
    ids = [s.id for s in suite.specs]
    if len(set(ids)) != len(ids):
        raise SuiteError(f"{path}: spec ids must be unique, got {ids}")
    for s in suite.specs:
        names = [c.name for c in s.checks]
        if len(set(names)) != len(names):
            raise SuiteError(f"{path}: spec {s.id}: check names must be unique")
    return suite


def load_mutant(d: Path) -> Mutant:
    path = d / "mutant.yaml"
    data = _read_yaml(path)
    try:
        return Mutant.model_validate({"name": d.name, **data, "dir": d})
    except ValidationError as e:
        raise _fail(path, e) from None


def locked_hash(suite: Suite) -> str | None:
    lock = suite.folder / "suite.lock"
    return lock.read_text().strip() if lock.is_file() else None


def materialize(suite: Suite, spec: Spec, dest: Path, mutant: Mutant | None = None) -> Path:
    """Write the reference app (plus a mutant's overlay) into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(suite.reference_dir(spec), dest, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "*.db"))
    if mutant is not None:
        shutil.copytree(mutant.dir, dest, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("mutant.yaml", "__pycache__", "*.pyc"))
        for rel in mutant.delete:
            (dest / rel).unlink(missing_ok=True)
    return dest
