"""bench-v5's row tables (seed 2026): bench-v3's golden rows, its behavioural shell checks and the edge-class rows,
answered by the reference apps and frozen with exact, typed expectations (the ``rows`` check kind).

Where the rows come from:

- every row of bench-v3's frozen golden tables (``suites/bench-v3/tables/*.json``, read only), with the
  same inputs; what bench-v3 compared leniently is now exact: the whole stdout byte for byte (``exact``),
  the only number printed (``value``, was ``number2``), an error step with nothing on stdout and one
  ``error:`` line, written text files byte for byte;
- bench-v3's behavioural shell checks (``help``, ``total_value``, ``right_assoc_pow``, ``nested_rollback``,
  ``acceptance``, ``csv_line_ends``, ``default_file``), one table each (:data:`CHECK_ROWS`), so their text
  never enters the box;
- the cross-cutting edge-class rows of ``gen/edges.py`` and ``gen/edges_<name>.py`` (``gen/edges_more.py``);
  the ``largest`` rows' steps get ``budget_s``, CPU seconds: ``rowmatch.budget_for`` the least of the
  reference's CPU over three runs (:func:`cpu_budgets`).

Every step is run against the spec's reference app with the grading's own driver (fork mode, in the
reference folder), and its outcome becomes the frozen expectation; grading never runs the reference.  The
review built in: a bench-v3 row's outcome must still pass bench-v3's lenient comparison (the reference has
not drifted), every error step prints nothing on stdout and one ``error:`` line, every ``value`` step
prints its number alone, every hand-written ``stdout=`` (the prompt's own words) equals what the reference
prints — and every row, once written, passes :mod:`swarmgym.grading.rowmatch`.  A disagreement stops it.

    python3 suites/bench-v5/gen/gen_v5.py            # from the repository root
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SUITE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SUITE.parents[1]))
sys.path.insert(0, str(SUITE / "gen"))

from edges import EDGE_ROWS  # noqa: E402
from edges_more import MORE_ROWS  # noqa: E402

from swarmgym.grading import difftable, difftable_compare, rowmatch  # noqa: E402

V3 = SUITE.parent / "bench-v3" / "tables"
SEED = 2026
MODULES = {"invtrack", "rdcalc", "txkvbench", "tabconv", "orderfsm", "libloan", "logstat", "todokit", "splitpay"}


def step(argv: list[str], out: str = "exact", stdout: Any = None, *, stdin: str | None = None,
         cwd: str | None = None, files: dict[str, dict[str, Any]] | None = None, exit: int | str = 0,
         err: bool = False) -> dict[str, Any]:
    """A hand-written step: ``stdout`` (for ``exact``, the review: the reference must print exactly it;
    for ``value`` / ``words`` / ``lines`` / ``order``, what is compared), ``exit`` the status the prompt
    gives, ``err`` an error step."""
    st: dict[str, Any] = {"argv": argv, "out": out, "stdout": stdout, "exit": exit}
    if stdin is not None:
        st["stdin"] = stdin
    if cwd:
        st["cwd"] = cwd
    if files:
        st["files"] = files
    if err:
        st["err"] = "error:"
    return st


def row(rid: str, req: list[str], edges: list[str], *steps: dict[str, Any],
        files_in: dict[str, str] | None = None) -> dict[str, Any]:
    r: dict[str, Any] = {"id": rid, "req": req, "edges": edges, "steps": list(steps)}
    if files_in:
        r["files_in"] = files_in
    return r


def db(*argv: str) -> list[str]:
    return ["--db", "{db}", *argv]


ADD_A1 = step(db("item", "add", "A1", "--name", "Bolt", "--qty", "10", "--price", "2"), "any")
ADD_A2 = step(db("item", "add", "A2", "--name", "Nut", "--qty", "5", "--price", "1"), "any")
LOAN = ["--data", "{dir}/accept.json"]
PAY = ["--db", "{dir}/accept.db"]


def help_row(rid: str, req: str, words: list[str]) -> list[dict[str, Any]]:
    return [row(rid, [req], [], step(["--help"], "words", words))]


#: bench-v3's behavioural shell checks as rows: {slug: {check name: rows}}
CHECK_ROWS: dict[str, dict[str, list[dict[str, Any]]]] = {
    "invtrack": {
        "help": help_row("help", "C-HELP", ["item", "stock", "report"]),
        "hard_help_export": help_row("help-export", "C-HELP-EXPORT", ["export"]),
        "total_value": [row("total-value", ["C-ACCEPT", "C-VALUE"], [], ADD_A1, ADD_A2,
                            step(db("report", "value"), "value", "25.00"))],
    },
    "rdcalc": {
        "help": help_row("help", "R-HELP", ["eval"]),
        "right_assoc_pow": [row("right-assoc-pow", ["R-POW-RIGHT", "R-ACCEPT"], [],
                                step(["eval", "2^3^2"], stdout="512\n"))],
    },
    "txkvbench": {
        "help": help_row("help", "T-HELP", ["exec"]),
        "nested_rollback": [row("nested-rollback", ["T-ACCEPT", "T-ROLLBACK-INNER"], [],
                                step(db("exec", "SET x 1; BEGIN; SET x 2; GET x; ROLLBACK; GET x; COUNT"),
                                     stdout="2\n1\n1\n"))],
    },
    "tabconv": {
        "help": help_row("help", "T-HELP", ["to-json", "to-csv"]),
        "hard_help_stats": help_row("help-stats", "T-HELP-HARD", ["stats"]),
        "csv_line_ends": [row("csv-line-ends", ["T-CSV-LF"], [],
                              step(["to-csv", "-"], stdin='[{"a": 1}, {"a": "x"}]', stdout="a\n1\nx\n"))],
    },
    "orderfsm": {
        "help": help_row("help", "F-HELP", ["create", "pay", "ship", "deliver", "cancel", "refund", "show", "list",
                                            "history"]),
    },
    "logstat": {
        "help": help_row("help", "L-HELP", ["summary", "status", "top", "latency", "rate"]),
    },
    "todokit": {
        "help": help_row("help", "E-LAYOUT", ["add", "list", "done", "remove", "show", "search"]),
        "default_file": [row("default-file", ["E-OLD-FILE-OPT"], [],
                             step(["add", "Buy milk"], "any", cwd="{dir}", files={"{dir}/todo.json": {"exists": True}}),
                             step(["list"], stdout="[ ] 1 Buy milk\n", cwd="{dir}"),
                             step(["--file", "other.json", "list"], stdout="no tasks\n", cwd="{dir}",
                                  files={"{dir}/other.json": {"absent": True}}))],
    },
    "libloan": {
        "help": help_row("help", "L-HELP", ["member", "book", "loan", "fine", "report"]),
        "hard_help_hold": help_row("help-hold", "L-HELP-HOLD", ["hold"]),
        "acceptance": [row("acceptance", ["L-ACCEPT"], [],
                           step([*LOAN, "member", "add", "M1", "--name", "Ada"], "any"),
                           step([*LOAN, "book", "add", "B1", "--title", "Dune", "--price", "12.99"], "any"),
                           step([*LOAN, "loan", "out", "M1", "B1", "--on", "2026-03-01"], stdout="due 2026-03-15\n"),
                           step([*LOAN, "loan", "return", "M1", "B1", "--on", "2026-03-18"], stdout="fine 0.97\n"),
                           step([*LOAN, "report", "fines"], stdout="M1 Ada 0.97\ntotal 0.97\n"))],
    },
    "splitpay": {
        "help": help_row("help", "S-HELP", ["person", "expense", "balances", "settle"]),
        "hard_help_payment": help_row("help-payment", "S-HELP-HARD", ["payment", "export"]),
        "acceptance": [row("acceptance", ["S-ACCEPT"], [],
                           *(step([*PAY, "person", "add", p], "any") for p in ("Ann", "Bob", "Cy")),
                           step([*PAY, "expense", "add", "--payer", "Ann", "--amount", "10", "--desc", "Lunch",
                                 "--equal", "Ann", "--equal", "Bob", "--equal", "Cy"], "any"),
                           step([*PAY, "balances"], stdout="Ann 6.66\nBob -3.33\nCy -3.33\n"),
                           step([*PAY, "settle"], stdout="Bob pays Ann 3.33\nCy pays Ann 3.33\n"))],
    },
}


def run_reference(slug: str, rows: list[dict[str, Any]], app: str = "reference") -> dict[int, dict[str, Any]]:
    """Every row through the grading's driver (fork mode) in the reference (or starter) folder: outcomes by
    row index."""
    table = {"module": slug, "rows": rows}
    cmd = difftable.command(difftable.box_inputs(table, range(len(rows)), "fork", step_timeout=60, deadline_s=3600))
    p = subprocess.run(["bash", "-c", cmd], cwd=SUITE / "apps" / slug / app, capture_output=True, text=True,
                       check=False, env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"})
    got = difftable.parse(p.stdout)
    if got is None:
        sys.exit(f"{slug}: the driver gave no result (exit {p.returncode}): {p.stderr[-800:]}")
    return got


def _file_want(want: dict[str, Any], got: dict[str, Any]) -> dict[str, Any]:
    if "text" in want:  # text files: the reference's exact bytes
        return {"text": got["text"]}
    return want


def freeze_step(where: str, st: dict[str, Any], got: dict[str, Any], v3: bool) -> dict[str, Any]:
    """The frozen v4 step for ``st`` given the reference's outcome ``got``."""
    out, err, code = got.get("out", ""), got.get("err", ""), got.get("code")
    if v3 and (why := difftable_compare.step_problem(st, got, 60)):
        sys.exit(f"{where}: the reference no longer passes its bench-v3 row: {why}")
    if st["exit"] == "ref":  # a step of a random sequence: its exit status is the reference's
        st = {**st, "exit": code}
        if code == 2:  # argparse's usage error: its form is left open
            st = {**st, "exit": "nonzero", "out": "any"}
        elif code != 0:
            st = {**st, "err": err[:len(ERR_PREFIX.get(slug_of(where), "error:"))], "out": "any"}
    frozen: dict[str, Any] = {"argv": st["argv"], "exit": st["exit"]}
    for key in ("stdin", "cwd"):
        if st.get(key) is not None:
            frozen[key] = st[key]
    mode = {"number2": "value"}.get(st.get("out", "any"), st.get("out", "any"))
    if st["exit"] != "nonzero" and code != st["exit"]:
        sys.exit(f"{where}: the reference exits {code}, the row says {st['exit']} ({err.strip()[:200]})")
    if st.get("err") is not None:
        frozen["err"] = st["err"]
        mode = "any"
        if slug_of(where) in ERR_STDOUT_OPEN:  # "what an error prints on stdout is up to you"
            frozen["err_stdout_open"] = True
        elif out:  # statements before the failing one printed (txkvbench's exec): not compared
            print(f"  {where}: stdout before the error left open ({out[:40]!r})")
            frozen["err_stdout_open"] = True
        if any("\n" in a or "\r" in a for a in st["argv"]):  # a message repeating that argument spans lines:
            frozen["err_lines_open"] = True                  # only its start is asked (the prompt's one line is the message)
    frozen["out"] = mode
    if mode == "exact":
        if st.get("stdout") is not None and st["stdout"] != out:
            sys.exit(f"{where}: the reference prints {out!r}, the review says {st['stdout']!r}")
        frozen["stdout"] = out
    elif mode == "json" and st.get("stdout") is None:  # a sequence's read: the reference's document
        frozen["stdout"] = json.loads(out)
    elif mode == "value" and st.get("stdout") is None:  # a sequence's read: the one number it prints
        if len(rowmatch.numbers(out)) != 1:
            sys.exit(f"{where}: a value step, but the reference prints {out!r}")
        frozen["stdout"] = rowmatch.numbers(out)[0]
    elif mode != "any":
        frozen["stdout"] = st["stdout"]
    if st.get("files"):
        frozen["files"] = {p: _file_want(w, got["files"].get(p, {})) for p, w in st["files"].items()}
    if why := rowmatch.step_problem(frozen, got, 60):
        sys.exit(f"{where}: the reference fails its own v4 step: {why}")
    return frozen


ERR_PREFIX = {"txkvbench": "ERR"}
ERR_STDOUT_OPEN = {"libloan"}  # its prompt leaves what an error prints on stdout open


def slug_of(where: str) -> str:
    return where.split()[0]


def freeze(slug: str, rows: list[dict[str, Any]], v3: bool) -> list[dict[str, Any]]:
    got = run_reference(slug, rows)
    budgets = cpu_budgets(slug, rows, got)
    frozen = []
    for n, r in enumerate(rows):
        steps = [{**freeze_step(f"{slug} row {r['id']} step {k}", st, got[n]["steps"][k], v3),
                  **({"budget_s": budgets[n, k]} if (n, k) in budgets else {})}
                 for k, st in enumerate(r["steps"])]
        frozen.append({**{k: v for k, v in r.items() if k != "steps"}, "steps": steps})
    return frozen


BUDGET_RUNS = 3  # the reference's CPU of a budgeted step is the least of this many runs (load only adds CPU)


def cpu_budgets(slug: str, rows: list[dict[str, Any]], got: dict[int, dict[str, Any]]) -> dict[tuple[int, int], float]:
    """``budget_s`` of every step of the ``largest`` rows, by (row, step): :func:`rowmatch.budget_for` the
    least of the reference's CPU seconds over ``BUDGET_RUNS`` fork-mode runs (``got`` is the first): a
    loaded machine inflates CPU time (shared caches), so the least is the closest to the step's own cost."""
    picked = [n for n, r in enumerate(rows) if "largest" in r.get("edges", [])]
    if not picked:
        return {}
    runs = [[got[n] for n in picked]]
    for _ in range(BUDGET_RUNS - 1):
        again = run_reference(slug, [rows[n] for n in picked])
        runs.append([again[i] for i in range(len(picked))])
    out = {}
    for i, n in enumerate(picked):
        for k in range(len(rows[n]["steps"])):
            out[n, k] = rowmatch.budget_for(min(run[i]["steps"][k]["cpu"] for run in runs))
        total = sum(min(run[i]["steps"][k]["cpu"] for run in runs) for k in range(len(rows[n]["steps"])))
        print(f"  {slug} row {rows[n]['id']}: reference CPU {total:.3f} s over {len(rows[n]['steps'])} step(s)")
    return out


def write(name: str, rows: list[dict[str, Any]]) -> None:
    path = SUITE / "tables" / f"{name}.json"
    body = {"generator": "gen/gen_v5.py", "seed": SEED, "rows": rows}
    path.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n")
    print(f"{path.relative_to(SUITE)}: {len(rows)} rows")


def main() -> None:
    for path in sorted(V3.glob("*.json")):
        name = path.stem
        slug = name.split("-")[0]
        base = freeze(slug, json.loads(path.read_text())["rows"], v3=True)
        more = EDGE_ROWS.get(name, []) + MORE_ROWS.get(name, [])
        extra = freeze(slug, more, v3=False) if more else []
        if name == "todokit-old":  # the old behaviour: the starter must answer every row as the reference does
            got = run_reference(slug, base + extra, app="starter")
            for n, r in enumerate(base + extra):
                if why := rowmatch.row_problem(r, got[n], 60):
                    sys.exit(f"{name} row {r['id']}: the starter answers otherwise: {why}")
        write(name, base + extra)
    for slug, checks in CHECK_ROWS.items():
        for check, rows in checks.items():
            write(f"{slug}-{check.replace('_', '-')}", freeze(slug, rows, v3=False))


if __name__ == "__main__":
    main()
