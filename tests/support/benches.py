"""bench-v3 … bench-v6 as their tests read them: the suites, a correct app's other output styles, and
the checks an app fails."""
from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from swarmgym import REPO_ROOT
from swarmgym.config import Config
from swarmgym.suitekit.suite import TABLE_KINDS, Suite, load_suite
from tests.support.grading import check_results

V3 = load_suite("bench-v3", REPO_ROOT / "suites")
V4 = load_suite("bench-v4", REPO_ROOT / "suites")
V5 = load_suite("bench-v5", REPO_ROOT / "suites")
V6 = load_suite("bench-v6", REPO_ROOT / "suites")


def failed_checks(suite: Suite, spec_id: str, names: list[str], ws: Path, cfg: Config,
                  row_filter: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    """{check name: detail} of the checks ``names`` of ``spec_id`` that ``ws`` fails (``row_filter``: only these
    rows of their tables; a row that fails alone fails its whole table, each row running in its own folder)."""
    checks = [c for c in suite.spec(spec_id).checks if c.name in names]
    return {r.name: r.detail for r in check_results(checks, ws, cfg, row_filter=row_filter) if not r.passed}


def row_ids(*ids: str) -> Callable[[dict[str, Any]], bool]:
    """A ``row_filter`` keeping the rows ``ids``."""
    return lambda row: row["id"] in ids


@cache
def v4_rows_v5_changed() -> dict[tuple[str, str], tuple[str, ...]]:
    """{(spec id, check name): ids} of bench-v4's table rows that bench-v5 does not carry word for word (bench-v5
    appends rows, and lets four error rows' messages run over lines: ``err_lines_open``)."""
    changed = {}
    for a, b in zip(V4.specs, V5.specs):
        for c4, c5 in zip(a.checks, b.checks):
            if c4.kind in TABLE_KINDS:
                old = json.loads(c4.table_file().read_text())["rows"]
                new = json.loads(c5.table_file().read_text())["rows"]  # v4's rows first, in order; then v5's own
                ids = tuple(r4["id"] for r4, r5 in zip(old, new + [None] * len(old)) if r4 != r5)
                if ids:
                    changed[(a.id, c4.name)] = ids
    return changed


STYLES = {  # a correct app's other ways to print: every byte the same, every one graded functional
    "buffer_and_os_exit": '''
import builtins, os, sys
_print = builtins.print
def _buffer_print(*args, sep=" ", end="\\n", file=None, flush=False):
    if file is not None and file is not sys.stdout:
        return _print(*args, sep=sep, end=end, file=file, flush=flush)
    sys.stdout.flush()
    sys.stdout.buffer.write((sep.join(map(str, args)) + end).encode("utf-8"))
    sys.stdout.buffer.flush()
builtins.print = _buffer_print
from {slug}.cli import main
try:
    code = main()
except SystemExit as e:
    code = e.code
if isinstance(code, str):
    sys.stderr.write(code + "\\n")
    code = 1
sys.stdout.flush()
sys.stderr.flush()
os._exit(code or 0)
''',
    "stdout_write": '''
import builtins, sys
_print = builtins.print
def _write_print(*args, sep=" ", end="\\n", file=None, flush=False):
    (sys.stdout if file is None else file).write(sep.join(map(str, args)) + end)
builtins.print = _write_print
from {slug}.cli import main
sys.exit(main())
''',
}


#: the apps written from each spec's prompt alone (other layouts and styles than the reference), by spec id
INDEPENDENT = {"crud": "alt_apps/invtrack", "compute": "alt_apps/rdcalc", "txn": "alt_apps/txkvbench",
               "money": "alt_apps_v3/splitpay", "modular": "alt_apps_v3/libloan", "logs": "alt_apps_v3/logstat",
               "fsm": "alt_apps_v3/orderfsm", "convert": "alt_apps_v3/tabconv", "extend": "alt_apps_v3/todokit"}
