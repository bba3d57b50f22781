"""Suites as data: ``suites/<name>/suite.yaml`` plus reference apps and mutants.

Layout of a suite folder::

    suites/<name>/suite.yaml                 specs: prompts, hard prompts, checks
    suites/<name>/suite.lock                 the expected content hash (frozen suites)
    suites/<name>/apps/<slug>/reference/     a clean implementation: must pass every check
    suites/<name>/apps/<slug>/mutants/<m>/   mutant.yaml {description, targets[]} + files
                                             overlaid on the reference (realistic failures)
    suites/<name>/apps/<slug>/starter/       (optional, ``starter:`` on the spec) the app a
                                             continue-existing spec's workspace starts with

The suite hash covers only the canonical prompts and checks: editing either makes a new suite.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    model_validator,
)

from swarmgym.core.errors import SuiteError
from swarmgym.core.yamlfile import invalid, read_yaml
from swarmgym.suitekit.edges import known_classes
from swarmgym.suitekit.mutants import Mutant, apply_mutant, load_mutant, load_patch_mutants
from swarmgym.suitekit.probes import Probe

#: The check kinds a suite may name (each graded by its class in :data:`swarmgym.grading.kinds.KINDS`; a test
#: holds the two to the same names) and the suite.yaml keys each needs.
CheckKind = Literal["command_succeeds", "file_exists", "file_contains", "file_matches", "tool_called", "differential",
                    "rows", "probe"]
CHECK_KINDS: tuple[str, ...] = get_args(CheckKind)
KIND_KEYS: dict[str, tuple[str, ...]] = {
    "command_succeeds": ("run",), "file_exists": ("path",), "file_contains": ("path", "text"),
    "file_matches": ("path", "pattern"), "tool_called": ("tool",), "differential": ("table", "module"),
    "rows": ("table", "module"), "probe": ("probe",)}
#: The kinds graded from a frozen table of rows (``table`` + ``module``): the table is part of the suite hash.
TABLE_KINDS = ("differential", "rows")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Check(_Strict):
    """One golden check. Which fields apply depends on ``kind``."""

    name: str
    kind: CheckKind
    run: str | None = None          # command_succeeds: bash command run in the workspace
    path: str | None = None         # file_*: path or glob relative to the workspace
    text: str | None = None         # file_contains: literal substring
    pattern: str | None = None      # file_matches: regular expression (re.search, MULTILINE)
    tool: str | None = None         # tool_called: tool name (a suffix after '__' matches too)
    table: str | None = None        # differential: frozen golden table (JSON), relative to the suite folder
    module: str | None = None       # differential: the module run as ``python3 -m MODULE``
    probe: Probe | None = None      # probe: what a structural probe looks at (swarmgym.suitekit.probes)
    covers: list[str] | None = None  # requirement ids this check answers for (None: an untraced suite)
    edges: list[str] | None = None   # edge classes this check samples for the requirements it covers
    hard_only: bool = False         # only graded on the extreme tier (hard prompt)
    timeout: float | None = None    # per-check override of checks.timeout
    description: str = ""
    _root: Path | None = PrivateAttr(None)  # the suite folder (set by the loader; where ``table`` lives)

    def table_file(self) -> Path:
        if self._root is None:
            raise SuiteError(f"check {self.name!r}: a table check needs its suite folder")
        return self._root / str(self.table)

    @model_validator(mode="after")
    def _fields_for_kind(self) -> Check:
        missing = [f for f in KIND_KEYS[self.kind] if not getattr(self, f)]
        if missing:
            raise ValueError(f"check {self.name!r} of kind {self.kind} needs key {missing[0]!r}")
        return self


class Requirement(_Strict):
    """One normative statement of a prompt; ``hard_only`` when only the hard prompt states it."""

    id: str
    text: str
    hard_only: bool = False
    # input name -> its edge classes (swarmgym.suitekit.edges); {} for a requirement that takes no input
    # (layout, README); None: not declared (suites before bench-v3)
    inputs: dict[str, list[str]] | None = None

    def edge_classes(self) -> list[str]:
        """Every edge class any of this requirement's inputs declares (sorted, once each)."""
        return sorted({c for classes in (self.inputs or {}).values() for c in classes})


class Spec(_Strict):
    id: str
    app_slug: str
    language: str = "python"
    archetype: str = ""
    prompt: str
    hard_prompt: str
    requirements: list[Requirement] | None = None  # None: a suite without traceability (bench-v1)
    # a folder relative to the suite (``apps/<slug>/starter``) copied into the workspace before the
    # swarm runs: a continue-existing spec ("extend the app in the current directory"); None: empty
    starter: str | None = None
    checks: list[Check]

    def checks_for(self, hard: bool) -> list[Check]:
        return [c for c in self.checks if hard or not c.hard_only]

    def prompt_for(self, hard: bool) -> str:
        return self.hard_prompt if hard else self.prompt


class Suite(_Strict):
    name: str
    description: str = ""
    edge_classes: dict[str, str] = Field(default_factory=dict)  # the suite's own edge classes (name: description)
    min_mutants_per_spec: int = 0  # a kit rule (bench-v3: 30); not part of the hash, like the description
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

    def starter_dir(self, spec: Spec) -> Path | None:
        """The folder a spec's workspace starts with (``starter:``), or None for an empty workspace."""
        return self.folder / spec.starter if spec.starter else None

    def mutants(self, spec: Spec) -> list[Mutant]:
        """Folder mutants (``mutants/<name>/``) and patch mutants (``mutants.yaml``) of a spec's app."""
        base = self.folder / "apps" / spec.app_slug / "mutants"
        found = [load_mutant(d) for d in sorted(base.iterdir()) if d.is_dir()] if base.is_dir() else []
        return found + load_patch_mutants(self.folder / "apps" / spec.app_slug / "mutants.yaml")


def canonical(suite: Suite) -> str:
    """The bytes the hash covers: prompts and checks, sorted keys, no whitespace games.

    Unset optional fields (None) are left out, so adding a new optional check field to the
    loader later does not change the hash of every suite already frozen.
    """
    specs = [s.model_dump(mode="json", exclude_none=True) for s in suite.specs]
    for spec, dumped in zip(suite.specs, specs):  # a differential check's golden table is part of the check
        for check, c in zip(spec.checks, dumped["checks"]):
            if check.kind in TABLE_KINDS:
                c["table_sha256"] = _table_digest(suite, check)
        if spec.starter:  # what the swarm starts from is part of its task, like the prompt
            dumped["starter_sha256"] = starter_digest(suite.folder / spec.starter)
    body = {"name": suite.name, "specs": specs}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _table_digest(suite: Suite, check: Check) -> str:
    path = check.table_file()
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as e:
        raise SuiteError(f"{path}: cannot read golden table of check {check.name!r} ({e.strerror})") from None


STARTER_IGNORE = ("__pycache__", "*.pyc", ".pytest_cache")


def starter_files(folder: Path) -> list[Path]:
    """The files of a starter folder that a workspace receives (sorted; caches left out)."""
    return sorted(p for p in folder.rglob("*") if p.is_file()
                  and "__pycache__" not in p.parts and ".pytest_cache" not in p.parts and p.suffix != ".pyc")


def starter_digest(folder: Path) -> str:
    """sha256 over a starter folder's relative paths and bytes: a changed, added or removed file changes it."""
    h = hashlib.sha256()
    for f in starter_files(folder):
        h.update(f.relative_to(folder).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(f.read_bytes()).hexdigest().encode() + b"\n")
    return h.hexdigest()


def seed_workspace(suite: Suite, spec: Spec, ws: Path) -> list[str]:
    """Copy the spec's starter (if any) into the workspace ``ws``; return the relative paths written."""
    folder = suite.starter_dir(spec)
    ws.mkdir(parents=True, exist_ok=True)
    if folder is None:
        return []
    shutil.copytree(folder, ws, dirs_exist_ok=True, ignore=shutil.ignore_patterns(*STARTER_IGNORE))
    return [f.relative_to(folder).as_posix() for f in starter_files(folder)]


def suite_hash(suite: Suite) -> str:
    return "sha256:" + hashlib.sha256(canonical(suite).encode()).hexdigest()[:16]


def _fail(path: Path, err: ValidationError) -> SuiteError:
    e = err.errors()[0]
    loc = ".".join(str(x) for x in e["loc"])
    if e["type"] == "literal_error" and loc.endswith("kind"):
        return SuiteError(f"{path}: {loc}: unknown check kind {e.get('input')!r}; expected one of {', '.join(CHECK_KINDS)}")
    return SuiteError(invalid(path, err))


def packaged_suites_dir() -> Path:
    """The suites shipped with swarmgym: ``swarmgym/suites`` inside an installed wheel, the repo's
    ``suites/`` folder in a source checkout or an editable install."""
    pkg = Path(__file__).resolve().parents[1]  # swarmgym/
    installed = pkg / "suites"
    return installed if installed.is_dir() else pkg.parent / "suites"


def known_suites(suites_dir: Path) -> list[str]:
    """The names of the suites in ``suites_dir`` (folders holding a suite.yaml), sorted."""
    try:
        return sorted(d.name for d in Path(suites_dir).iterdir() if (d / "suite.yaml").is_file())
    except OSError:
        return []


def load_suite(name_or_path: str | Path, suites_dir: Path | None = None) -> Suite:
    """Load a suite by name (from ``suites_dir``, default the packaged suites) or by folder / suite.yaml path."""
    p = Path(name_or_path)
    root = Path(suites_dir or packaged_suites_dir())
    if not p.exists():
        p = root / str(name_or_path)
    path = p / "suite.yaml" if p.is_dir() else p
    if not path.is_file():
        known = known_suites(root)
        raise SuiteError(f"{path}: no such suite file (suite {name_or_path!r}); known suites in {root}: "
                         + (", ".join(known) if known else "none"))
    data = read_yaml(path, SuiteError)
    specs = data.get("specs")
    if isinstance(specs, list):
        data = {**data, "specs": [_spec_file(path, s) if isinstance(s, str) else s for s in specs]}
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
        _check_trace(path, s)
        if s.starter and not (path.parent / s.starter).is_dir():
            raise SuiteError(f"{path}: spec {s.id}: starter: no such folder {s.starter!r} (relative to the suite)")
        _check_edges(path, s, known_classes(suite.edge_classes))
        for c in s.checks:
            c._root = path.parent
    return suite


def _check_trace(path: Path, spec: Spec) -> None:
    """Requirement ids are unique and every id a check covers is a requirement of its spec."""
    if spec.requirements is None:
        return
    ids = [r.id for r in spec.requirements]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise SuiteError(f"{path}: spec {spec.id}: requirement id {dup!r} is listed twice")
    for c in spec.checks:
        unknown = [r for r in c.covers or [] if r not in ids]
        if unknown:
            raise SuiteError(f"{path}: spec {spec.id}: check {c.name!r} covers unknown requirement {unknown[0]!r}")


def _spec_file(suite_path: Path, rel: str) -> Spec:
    """A spec kept in its own file (``specs: [specs/crud.yaml, …]``): one mapping, checked on its own
    so that an error names that file."""
    path = suite_path.parent / rel
    if not path.is_file():
        raise SuiteError(f"{suite_path}: specs: no such spec file {rel!r}")
    try:
        return Spec.model_validate(read_yaml(path, SuiteError))
    except ValidationError as e:
        raise _fail(path, e) from None


def _check_edges(path: Path, spec: Spec, known: dict[str, str]) -> None:
    """Every edge class a requirement, check or mutant names is a known one (swarmgym.suitekit.edges)."""
    def unknown(names, where: str) -> None:
        bad = [n for n in names if n not in known]
        if bad:
            raise SuiteError(f"{path}: spec {spec.id}: {where} names unknown edge class {bad[0]!r}; "
                             f"expected one of {', '.join(known)} (or declare it under edge_classes)")

    for r in spec.requirements or []:
        for name, classes in (r.inputs or {}).items():
            if not classes:
                raise SuiteError(f"{path}: spec {spec.id}: requirement {r.id} input {name!r} lists no edge class")
            unknown(classes, f"requirement {r.id} input {name!r}")
    for c in spec.checks:
        unknown(c.edges or [], f"check {c.name!r}")
        if c.edges and not c.covers:
            raise SuiteError(f"{path}: spec {spec.id}: check {c.name!r} lists edges but covers no requirement")


def locked_hash(suite: Suite) -> str | None:
    lock = suite.folder / "suite.lock"
    return lock.read_text().strip() if lock.is_file() else None


def materialize(suite: Suite, spec: Spec, dest: Path, mutant: Mutant | None = None) -> Path:
    """Write the reference app (plus a mutant's overlay or patch) into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(suite.reference_dir(spec), dest, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "*.db"))
    if mutant is not None:
        apply_mutant(mutant, dest)
    return dest
