"""Writing golden tables: answer each row's steps with the reference app, then freeze the table.

A suite's generator (``suites/<name>/gen/gen_<slug>.py``, scaffolded by ``swarmgym suite new``) lists
rows and calls :func:`answer` then :func:`write`::

    rows = [row("add-zero-qty", ["C-ADD"], ["zero"],
                step(["--db", "{db}", "item", "add", "A1", "--name", "Bolt", "--qty", "0", "--price", "2"]),
                step(["--db", "{db}", "item", "list", "--json"], out="json"))]
    write(SUITE, "invtrack", answer(SUITE / "apps/invtrack/reference", "invtrack", rows), seed=2026)

A row is ``{id, req, edges, files_in?, steps}``: ``req`` the requirement ids it answers for, ``edges``
the edge classes it samples (``[]`` for the common case; see :mod:`swarmgym.suitekit.edges`), ``files_in``
files written into the row's folder (``{dir}/…``) before its first step.  A step is ``{argv, stdin?,
out, stdout?, files?, expect_exit?, usage?}``: ``out`` says how stdout will be compared (``exact``, ``json``,
``number2`` / ``order`` with the tokens given as ``stdout``, ``any``); ``files`` maps a path the step
writes to ``csv`` | ``text`` | ``json``.  :func:`answer` runs each step as ``python3 -m MODULE`` in the
reference folder (a fresh temp folder per row for ``{db}`` / ``{dir}``) and records the exit status,
stdout, the stderr prefix of an error and the files — the golden values.  ``usage=True`` marks a step
whose failure the prompt does not shape (a required option left out: argparse exits 2 with its own
message): the golden row then asks only for a non-zero exit and no traceback (``"exit": "nonzero"``).  ``expect_exit`` and
``expect`` (a callable given the stdout) are the generator's own review: the reference must agree
with a model of the prompt, so a reference bug cannot become a golden value unnoticed.
"""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from swarmgym.core.errors import SuiteError

OUT_MODES = ("exact", "json", "number2", "order", "any")
FILE_KINDS = ("csv", "text", "json")


def step(argv: list[str], *, out: str = "exact", stdin: str | None = None, stdout: Any = None,
         files: dict[str, str] | None = None, expect_exit: int | None = None,
         expect: Callable[[str], bool] | None = None, usage: bool = False) -> dict[str, Any]:
    """One command of a row (see the module docstring for the fields)."""
    if out not in OUT_MODES:
        raise SuiteError(f"step {argv}: out must be one of {', '.join(OUT_MODES)}, got {out!r}")
    for path, kind in (files or {}).items():
        if kind not in FILE_KINDS:
            raise SuiteError(f"step {argv}: file {path} kind must be one of {', '.join(FILE_KINDS)}, got {kind!r}")
    return {"argv": list(argv), "out": out, "stdin": stdin, "stdout": stdout, "files": files or {},
            "expect_exit": expect_exit, "expect": expect, "usage": usage}


def row(row_id: str, req: list[str], edges: list[str], *steps: dict[str, Any],
        files_in: dict[str, str] | None = None) -> dict[str, Any]:
    """One golden row: the requirements it answers for, the edge classes it samples, its steps."""
    return {"id": row_id, "req": list(req), "edges": list(edges), "files_in": files_in or {}, "steps": list(steps)}


def run_reference(reference: Path, module: str, argv: list[str], stdin: str | None) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", module, *argv], cwd=reference, check=False, capture_output=True,
                       text=True, input=stdin or "", timeout=60, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    return p.returncode, p.stdout, p.stderr


def _read_file(path: str, kind: str) -> dict[str, Any]:
    if not os.path.exists(path):
        return {"absent": True}
    text = Path(path).read_text(encoding="utf-8")
    if kind == "csv":
        return {"csv": list(csv.reader(io.StringIO(text)))}
    if kind == "json":
        return {"json": json.loads(text)}
    return {"text": text}


def answer(reference: Path, module: str, rows: list[dict[str, Any]], err_prefix: str = "error:") -> list[dict[str, Any]]:
    """Run every row against the reference app and return the golden rows (see the module docstring)."""
    ids = [r["id"] for r in rows]
    if len(set(ids)) != len(ids):
        raise SuiteError(f"row ids must be unique; {next(i for i in ids if ids.count(i) > 1)!r} repeats")
    out = []
    for r in rows:
        with tempfile.TemporaryDirectory(prefix="swarmgym-gen-") as tmp:
            def sub(s: str) -> str:
                return s.replace("{db}", os.path.join(tmp, "t.db")).replace("{dir}", tmp)

            for path, text in r["files_in"].items():
                Path(sub(path)).write_text(text, encoding="utf-8", newline="")
            steps = [_answer_step(reference, module, r["id"], st, sub, err_prefix) for st in r["steps"]]
        golden = {"id": r["id"], "req": r["req"], "edges": r["edges"], "steps": steps}
        if r["files_in"]:
            golden["files_in"] = r["files_in"]
        out.append(golden)
    return out


def _answer_step(reference: Path, module: str, row_id: str, st: dict[str, Any], sub: Callable[[str], str],
                 err_prefix: str) -> dict[str, Any]:
    code, stdout, stderr = run_reference(reference, module, [sub(a) for a in st["argv"]], st["stdin"])
    where = f"row {row_id} step {st['argv']}"
    if "Traceback" in stdout + stderr:
        raise SuiteError(f"{where}: the reference printed a traceback:\n{stderr[-800:]}")
    if st["expect_exit"] is not None and code != st["expect_exit"]:
        raise SuiteError(f"{where}: the reference exits {code}, the review expects {st['expect_exit']} ({stderr.strip()[:200]})")
    if st["expect"] is not None and not st["expect"](stdout):
        raise SuiteError(f"{where}: the review rejects the reference's stdout {stdout[:300]!r}")
    golden: dict[str, Any] = {"argv": st["argv"], "exit": code}
    if st["stdin"] is not None:
        golden["stdin"] = st["stdin"]
    mode = st["out"]
    if st["usage"]:
        if code == 0:
            raise SuiteError(f"{where}: a usage-error step, but the reference exits 0")
        return {**golden, "exit": "nonzero", "out": "any"}
    if code != 0:
        golden["err"] = err_prefix
        lines = [ln for ln in stderr.splitlines() if ln.strip()]
        if len(lines) != 1 or not lines[0].startswith(err_prefix):
            raise SuiteError(f"{where}: the reference's error is not one line starting with {err_prefix!r}: {stderr!r}")
        mode = "any"
    golden["out"] = mode
    if mode == "exact":
        golden["stdout"] = stdout
    elif mode == "json":
        golden["stdout"] = json.loads(stdout)
    elif mode in ("number2", "order"):
        tokens = st["stdout"]
        missing = [t for t in ([tokens] if isinstance(tokens, str) else tokens) if t not in stdout]
        if missing:
            raise SuiteError(f"{where}: the reference's stdout lacks the review's token(s) {missing}: {stdout[:300]!r}")
        golden["stdout"] = tokens
    if st["files"] and code == 0:
        golden["files"] = {p: _read_file(sub(p), kind) for p, kind in st["files"].items()}
    return golden


def write(suite_dir: Path, name: str, rows: list[dict[str, Any]], *, seed: int, generator: str | None = None) -> Path:
    """Write ``tables/<name>.json`` (rows as answered); prints where and how many rows."""
    path = Path(suite_dir) / "tables" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    gen = generator or f"gen/gen_{name.split('-')[0]}.py"
    path.write_text(json.dumps({"generator": gen, "seed": seed, "rows": rows}, indent=1, ensure_ascii=False) + "\n")
    print(f"{path}: {len(rows)} rows")
    return path
