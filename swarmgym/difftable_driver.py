"""Differential-check driver: runs a frozen golden table against ``python3 -m MODULE`` (stdlib only).

This file is not imported by swarmgym: :mod:`swarmgym.difftable` sends its source, with the table
appended, to ``python3 -`` inside the check sandbox, in the workspace.  Every row runs in this one
process (``runpy``, the app's modules re-imported per row, stdout/stderr captured); a row that
disagrees with its golden value is re-run as real subprocesses, and only that result counts — so
running in-process can speed a check up but never fail an app that a plain ``python3 -m`` passes.

Row: ``{"id", "req": [...], "edges": [...]?, "files_in": {PATH: TEXT}?, "steps": [{"argv": [...],
"stdin": TEXT?, "exit": N | "nonzero", "out": MODE, "stdout": GOLDEN, "err": PREFIX?, "files": {PATH: {"csv": [[...]]}
| {"text": TEXT} | {"json": DATA} | {"absent": true}}}]}``; ``{db}`` and ``{dir}`` in argv and paths
become a fresh per-row file / folder; ``files_in`` are written before the first step.
Output: one JSON line ``{"rows", "failed": [...]}``.
"""
import contextlib
import csv
import io
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import tempfile
import traceback

CONFIRM_CAP = 8  # failing rows re-run as subprocesses; past this many the rest are "unconfirmed"


def run_inproc(module, argv, stdin=None):
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        del sys.modules[name]
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv[:], list(sys.path), sys.stdin
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        sys.argv = [module, *argv]
        sys.stdin = io.StringIO(stdin or "")
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as e:
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except BaseException:  # noqa: BLE001 - what the interpreter does with an uncaught exception
            traceback.print_exc()
            code = 1
        finally:
            sys.argv, sys.path[:], sys.stdin = saved[0], saved[1], saved[2]
    return code, out.getvalue(), err.getvalue()


def run_subproc(module, argv, stdin=None):
    try:
        p = subprocess.run([sys.executable, "-m", module, *argv], check=False, capture_output=True, text=True,
                           input=stdin or "", timeout=30)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after 30 s"
    return p.returncode, p.stdout, p.stderr


def _lines(text):
    lines = [ln.rstrip() for ln in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def same_json(want, got):
    if isinstance(want, bool) or isinstance(got, bool):
        return want is got
    if isinstance(want, int):
        return isinstance(got, int) and got == want
    if isinstance(want, float):
        return isinstance(got, (int, float)) and abs(got - want) < 1e-9
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(same_json, want, got))
    if isinstance(want, dict):
        return isinstance(got, dict) and set(got) == set(want) and all(same_json(want[k], got[k]) for k in want)
    return want == got


def stdout_ok(mode, want, text):
    if mode == "any":
        return True
    if mode == "exact":
        return _lines(text) == _lines(want)
    if mode == "json":
        try:
            return same_json(want, json.loads(text))
        except ValueError:
            return False
    if mode == "number2":  # the golden two-decimal number appears as a whole token
        return re.search(r"(?<![\d.])" + re.escape(want) + r"(?![\d])", text) is not None
    if mode == "order":  # these tokens appear, each on its own line, in this order (a free-form table)
        rows = [ln for ln in _lines(text) if any(re.search(r"(?<!\S)" + re.escape(w) + r"(?!\S)", ln) for w in want)]
        found = [w for ln in rows for w in want if re.search(r"(?<!\S)" + re.escape(w) + r"(?!\S)", ln)]
        return found == list(want)
    raise ValueError("unknown out mode " + repr(mode))


def step_problem(step, code, out, err, subst):
    if "Traceback (most recent call last)" in out + err:
        return "printed a Python traceback"
    if step["exit"] == "nonzero":  # a usage error the prompt leaves the form of: any failure, no traceback
        if code in (0, None):
            return f"exit {code}, want a non-zero exit"
    elif code != step["exit"]:
        return f"exit {code}, want {step['exit']}"
    prefix = step.get("err")
    if prefix is not None:
        lines = [ln for ln in _lines(err) if ln.strip()]
        if len(lines) != 1 or not lines[0].startswith(prefix):
            return f"stderr should be one line starting with {prefix!r}, got {err[-200:]!r}"
    if not stdout_ok(step.get("out", "any"), step.get("stdout"), out):
        return f"stdout {out[-300:]!r}, want {step.get('stdout')!r} ({step.get('out')})"
    for path, want in (step.get("files") or {}).items():
        problem = file_problem(path, subst(path), want)
        if problem:
            return problem
    return None


def file_problem(path, real, want):
    """Why the file at ``real`` is not what ``want`` ({csv|text|json|absent}) says, or None."""
    if want.get("absent"):
        return f"file {path} should not exist" if os.path.exists(real) else None
    try:
        with open(real, newline="", encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        return f"file {path}: {getattr(e, 'strerror', None) or e}"
    if "csv" in want:
        rows = list(csv.reader(io.StringIO(text)))
        return None if rows == want["csv"] else f"file {path} holds {rows[:4]!r}, want {want['csv'][:4]!r}"
    if "json" in want:
        try:
            ok = same_json(want["json"], json.loads(text))
        except ValueError:
            ok = False
        return None if ok else f"file {path} holds {text[:200]!r}, want JSON {json.dumps(want['json'])[:200]}"
    if _lines(text) != _lines(want["text"]):
        return f"file {path} holds {text[:200]!r}, want {want['text'][:200]!r}"
    return None


def run_row(module, row, runner):
    tmp = tempfile.mkdtemp(prefix="swarmgym-diff-")
    try:
        def subst(s):
            return s.replace("{db}", os.path.join(tmp, "t.db")).replace("{dir}", tmp)

        for path, text in (row.get("files_in") or {}).items():
            with open(subst(path), "w", encoding="utf-8", newline="") as f:
                f.write(text)
        for n, step in enumerate(row["steps"]):
            code, out, err = runner(module, [subst(a) for a in step["argv"]], step.get("stdin"))
            problem = step_problem(step, code, out, err, subst)
            if problem:
                return {"step": n, "argv": step["argv"], "problem": problem}
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(table, mode="inproc"):
    """``mode`` ``subproc`` runs every row as subprocesses only (what benchmarks/suite.py compares)."""
    module = table["module"]
    failed, unconfirmed = [], 0
    for row in table["rows"]:
        if mode == "inproc" and run_row(module, row, run_inproc) is None:
            continue
        if len(failed) >= CONFIRM_CAP:
            unconfirmed += 1
            continue
        why = run_row(module, row, run_subproc)
        if why is not None:
            failed.append({"id": row["id"], "req": row.get("req", []), **why})
    print(json.dumps({"rows": len(table["rows"]), "failed": failed, "unconfirmed": unconfirmed}))
    return 1 if failed else 0


TABLE = None  # the sender appends: TABLE = {...}; sys.exit(main(TABLE))
