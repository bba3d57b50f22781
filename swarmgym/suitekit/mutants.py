"""Mutants: their records, how they are read, and how any mutant is written over a reference.

A folder mutant is ``apps/<slug>/mutants/<name>/``: a ``mutant.yaml`` {description, targets[]} plus files
overlaid on the reference.  A patch mutant is an entry of ``apps/<slug>/mutants.yaml``, a list of hunks
``{file, old, new}``: each ``old`` must occur exactly once in the reference file (an empty ``old`` creates
``file`` with ``new``), so fixing the reference either keeps the mutant right or makes it fail loudly — never
silently a different mutant. ``rename`` moves reference paths (the wrong package layout), ``delete`` removes them.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from swarmgym.core.errors import SuiteError
from swarmgym.core.yamlfile import invalid, read_yaml


class Hunk(BaseModel):
    """Replace the one occurrence of ``old`` in ``file`` with ``new`` (``old`` empty: create the file)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str
    old: str = ""
    new: str = ""


class Mutant(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    targets: list[str] = Field(default_factory=list)  # checks it must fail (folder mutants of bench-v1)
    breaks: list[str] = Field(default_factory=list)   # requirement ids it breaks (patch mutants)
    failure: str = "liar"
    edge: str | None = None  # the edge class it is wrong on (right on the common case): an edge mutant
    delete: list[str] = Field(default_factory=list)  # reference files the mutant removes
    patch: list[Hunk] = Field(default_factory=list)   # edits applied to the reference
    rename: dict[str, str] = Field(default_factory=dict)  # reference path -> where the mutant puts it
    dir: Path | None = Field(None, exclude=True)       # overlay folder (folder mutants only)

    def touched(self) -> list[str]:
        """The workspace paths this mutant changes, adds or removes (relative, sorted)."""
        paths = set(self.delete) | {h.file for h in self.patch} | set(self.rename) | set(self.rename.values())
        if self.dir is not None:
            paths |= {p.relative_to(self.dir).as_posix() for p in self.dir.rglob("*")
                      if p.is_file() and p.name != "mutant.yaml" and "__pycache__" not in p.parts}
        return sorted(paths)


def load_mutant(d: Path) -> Mutant:
    """The folder mutant ``d`` (its ``mutant.yaml``; the folder's name is the mutant's)."""
    path = d / "mutant.yaml"
    data = read_yaml(path, SuiteError)
    try:
        return Mutant.model_validate({"name": d.name, **data, "dir": d})
    except ValidationError as e:
        raise SuiteError(invalid(path, e)) from None


def load_patch_mutants(path: Path) -> list[Mutant]:
    """The mutants listed in a ``mutants.yaml`` (``mutants: [{name, description, breaks, ...}]``)."""
    if not path.is_file():
        return []
    data = read_yaml(path, SuiteError)
    items = data.get("mutants")
    if not isinstance(items, list) or set(data) - {"mutants"}:
        raise SuiteError(f"{path}: expected one top-level key 'mutants' holding a list")
    out: list[Mutant] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise SuiteError(f"{path}: mutants.{i}: expected a mapping")
        try:
            out.append(Mutant.model_validate(item))
        except ValidationError as e:
            raise SuiteError(invalid(path, e, ("mutants", i))) from None
    names = [m.name for m in out]
    if len(set(names)) != len(names):
        raise SuiteError(f"{path}: mutant names must be unique")
    return out


def _inside(dest: Path, rel: str) -> Path:
    p = (dest / rel).resolve()
    if not p.is_relative_to(dest.resolve()):
        raise SuiteError(f"mutant path {rel!r} leaves the workspace")
    return p


def apply_mutant(mutant: Mutant, dest: Path) -> None:
    """Write ``mutant`` over the reference already copied into ``dest``."""
    if mutant.dir is not None:
        shutil.copytree(mutant.dir, dest, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("mutant.yaml", "__pycache__", "*.pyc"))
    for h in mutant.patch:
        target = _inside(dest, h.file)
        if not h.old:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(h.new)
            continue
        if not target.is_file():
            raise SuiteError(f"mutant {mutant.name}: patches {h.file}, which the reference does not have")
        text = target.read_text()
        n = text.count(h.old)
        if n != 1:
            raise SuiteError(f"mutant {mutant.name}: hunk for {h.file} matches {n} times (must be exactly once): "
                             f"{h.old.strip().splitlines()[0][:60]!r}")
        target.write_text(text.replace(h.old, h.new))
    for src, dst in mutant.rename.items():
        a, b = _inside(dest, src), _inside(dest, dst)
        if not a.exists():
            raise SuiteError(f"mutant {mutant.name}: renames {src}, which the reference does not have")
        b.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(a), str(b))
    for rel in mutant.delete:
        p = _inside(dest, rel)
        if p.is_dir():
            shutil.rmtree(p)
        else:
            p.unlink(missing_ok=True)
