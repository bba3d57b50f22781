"""Shared by the golden-table generators: answer each step with the reference app, write the table.

A generator lists rows ``{id, req, steps: [{argv, out, files?}]}``; :func:`answer` runs every step
against ``apps/<slug>/reference`` as ``python3 -m <slug>`` (a fresh temp folder per row for
``{db}`` / ``{dir}``) and records exit status, stdout and, for errors, the stderr prefix the
prompt demands.  Run from the repository root: ``python3 suites/bench-v2/gen/gen_rdcalc.py``.
The tables are then reviewed by hand and frozen (their digest is part of the suite hash).
"""
from __future__ import annotations

import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SUITE = Path(__file__).resolve().parent.parent


def run_ref(slug: str, argv: list[str]) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", slug, *argv], cwd=SUITE / "apps" / slug / "reference", check=False,
                       capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30)
    return p.returncode, p.stdout, p.stderr


def answer(slug: str, rows: list[dict], err_prefix: str) -> list[dict]:
    out = []
    for row in rows:
        with tempfile.TemporaryDirectory() as tmp:
            def sub(s: str) -> str:
                return s.replace("{db}", f"{tmp}/t.db").replace("{dir}", tmp)

            steps = []
            for st in row["steps"]:
                code, stdout, stderr = run_ref(slug, [sub(a) for a in st["argv"]])
                assert "Traceback" not in stderr, (row["id"], st, stderr)
                step = {"argv": st["argv"], "exit": code}
                mode = st.get("out", "exact")
                if code != 0:
                    step["err"] = err_prefix
                    mode = "any"
                step["out"] = mode
                if mode == "exact":
                    step["stdout"] = stdout
                elif mode == "json":
                    step["stdout"] = json.loads(stdout)
                elif mode in ("number2", "order"):
                    step["stdout"] = st["stdout"]
                if st.get("files") and code == 0:
                    step["files"] = {p: {"csv": list(csv.reader(Path(sub(p)).read_text().splitlines()))} for p in st["files"]}
                if mode == "number2":  # review: the reference prints the model's value as a token
                    assert st["stdout"] in stdout, (row["id"], st, stdout)
                if "expect_exit" in st:  # the generator's own review: the reference must agree
                    assert code == st["expect_exit"], (row["id"], st, code, stderr)
                steps.append(step)
        out.append({"id": row["id"], "req": row["req"], "steps": steps})
    return out


def write(name: str, rows: list[dict], seed: int) -> None:
    path = SUITE / "tables" / f"{name}.json"
    path.write_text(json.dumps({"generator": f"gen/gen_{name.split('-')[0]}.py", "seed": seed, "rows": rows},
                               indent=1, ensure_ascii=False) + "\n")
    print(f"{path}: {len(rows)} rows")
