"""What do probes cost next to bench-v3's shell probes, and does every bench-v3 reference pass them?

For each bench-v3 spec, on its reference app in the bwrap check box: each structural shell check of bench-v3
(``stdlib_only``, ``layout``, ``modules``, ``module_api``, ``store_module``, ``states_pure``, ``tests_pass``) and
the ``probe`` check that replaces it (below), interleaved ``--reps`` times.  One table: spec, check, the probe
type, mean wall ms and CPU ms of each (this process and every process it waited for: only with ``--backend
none`` — a bwrap box reaps its processes inside it, where this process's rusage does not see them), and whether
both pass.
The probes of ``module_api`` transcribe bench-v3's calls and wants; ``layout``'s drops ``--help`` (a behavioural
row in bench-v4).

    python benchmarks/probes.py [--reps 3] [--spec money --spec fsm] [--backend bwrap]
"""
from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console
from rich.table import Table

from swarmgym.config import load_config
from swarmgym.grading.grade import CHECKS, grade
from swarmgym.suitekit.suite import Check, load_suite, materialize

STRUCTURAL = ("stdlib_only", "layout", "modules", "module_api", "store_module", "states_pure", "tests_pass")
MODULES = {"convert": ["csvio", "infer", "convert", "cli"], "fsm": ["states", "store", "reports", "cli"],
           "logs": ["parser", "stats", "report", "cli"]}
DATE = "datetime:date"


def call(name: str, *args: Any, want: Any = None, raises: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"call": name, "args": list(args)}
    out.update({"raises": raises} if raises else {"want": want})
    return out


def money_api() -> list[dict[str, Any]]:
    calls = [call("splitpay.money:parse_cents", t, want=w) for t, w in [
        ("12", 1200), ("12.5", 1250), ("0.07", 7), ("0.29", 29), ("4.35", 435), ("1.15", 115), ("0", 0),
        ("98765432109876.53", 9876543210987653)]]
    calls += [call("splitpay.money:parse_cents", t, raises="ValueError") for t in ["-1", "+1", "1,000", "1.234", "1e3", "",
                                                                                  "12.5.1"]]
    calls += [call("splitpay.money:format_cents", c, want=w) for c, w in [
        (1050, "10.50"), (-5, "-0.05"), (0, "0.00"), (-100, "-1.00"), (7, "0.07"), (9876543210987653, "98765432109876.53"),
        (-123456789012345678, "-1234567890123456.78")]]
    calls += [call("splitpay.ledger:split_equal", 1000, ["Cy", "Ann", "Bob"], want={"Ann": 334, "Bob": 333, "Cy": 333}),
              call("splitpay.ledger:split_equal", 2, ["b", "B", "a"], want={"B": 1, "a": 1, "b": 0}),
              call("splitpay.ledger:split_shares", 1000, {"a": 1, "b": 2, "c": 4}, want={"a": 143, "b": 286, "c": 571}),
              call("splitpay.ledger:split_shares", 10, {"a": 3, "b": 2, "c": 1}, want={"a": 5, "b": 3, "c": 2}),
              call("splitpay.settle:plan", {}, want=[]),
              call("splitpay.settle:plan", {"Cy": -333, "Ann": 666, "Bob": -333},
                   want=[["Bob", "Ann", 333], ["Cy", "Ann", 333]]),
              call("splitpay.settle:plan", {"d": -500, "c": 300, "b": 300, "a": -100},
                   want=[["d", "b", 300], ["d", "c", 200], ["a", "c", 100]])]
    return calls


def modular_api() -> list[dict[str, Any]]:
    calls = [call("libloan.loans:due_date", {"$call": DATE, "args": list(d)},
                  want={"$repr": "datetime.date(%d, %d, %d)" % w}) for d, w in [
        ((2026, 3, 1), (2026, 3, 15)), ((2026, 12, 25), (2027, 1, 8)), ((2028, 2, 20), (2028, 3, 5)),
        ((2027, 2, 20), (2027, 3, 6))]]
    calls += [call("libloan.fines:fine_cents", *a, want=w) for a, w in [
        ((100, 1), 3), ((1299, 3), 97), ((100, 50), 100), ((100, 40), 100), ((100, 39), 98), ((100, 0), 0), ((100, -3), 0),
        ((0, 9), 0), ((20, 1), 1), ((60, 1), 2), ((999999999980, 1), 25000000000), ((1000000000000, 2), 50000000000)]]
    return calls


def probes_for(spec_id: str, slug: str) -> dict[str, dict[str, Any]]:
    """bench-v3 check name -> the probe mapping that replaces it, for one spec."""
    out: dict[str, dict[str, Any]] = {
        "stdlib_only": {"type": "stdlib_only", "package": slug},
        "layout": {"type": "layout", "files": [f"{slug}/__init__.py", f"{slug}/__main__.py"]},
        "tests_pass": {"type": "pytest"},
    }
    if spec_id in MODULES:
        out["modules"] = {"type": "imports", "modules": [f"{slug}.{m}" for m in MODULES[spec_id]]}
    if spec_id == "fsm":
        out["states_pure"] = {"type": "pure", "module": "orderfsm/states.py", "package": "orderfsm",
                              "forbid": ["sqlite3", "json", "os", "pathlib", "io", "shelve"]}
    if spec_id == "money":
        out["module_api"] = {"type": "api", "calls": money_api()}
        out["store_module"] = {"type": "sql_owner", "package": slug, "owner": "splitpay/store.py", "db_created": True,
                               "runs": [["--db", "{db}", *c.split()] for c in [
                                   "person list", "person add Ann", "person add Bob",
                                   "expense add --payer Ann --amount 10 --desc Lunch --equal Ann --equal Bob",
                                   "expense list", "balances", "settle"]]}
    if spec_id == "modular":
        out["module_api"] = {"type": "api", "calls": modular_api()}
        out["store_module"] = {"type": "file_owner", "package": slug, "owner": "libloan/store.py", "db_json": True,
                               "runs": [["--data", "{db}", *c.split()] for c in [
                                   "member add M1 --name Ada", "book add B1 --title Dune --price 12.99", "member list",
                                   "loan out M1 B1 --on 2026-03-01", "loan return M1 B1 --on 2026-03-18",
                                   "fine pay M1 0.50", "report fines", "report overdue --on 2026-04-01", "book list"]]}
    return out


def cpu_s() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(check: Check, ws: Path, cfg) -> tuple[float, float, bool, str]:
    c0, t0 = cpu_s(), time.perf_counter()
    [r] = grade(ws, [check], cfg, dimensions=CHECKS, strict=True).check_results()
    return time.perf_counter() - t0, cpu_s() - c0, r.passed, r.detail


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--spec", action="append", help="bench-v3 spec ids (default: all nine)")
    ap.add_argument("--backend", default="bwrap")
    args = ap.parse_args()
    suite = load_suite("bench-v3")
    home = Path(tempfile.mkdtemp(prefix="swarmgym-probes-bench-"))
    cfg = load_config(home, environ={"SWARMGYM_SANDBOX_BACKEND": args.backend})
    table = Table(title=f"bench-v3 shell probes vs probe checks, reference apps, {args.backend} box, {args.reps} reps "
                        "(mean ms)")
    cpu = args.backend == "none"
    cols = ["spec", "check", "probe type", "v3 wall", "probe wall"] + (["v3 CPU", "probe CPU"] if cpu else [])
    for col in cols + ["v3 / probe pass"]:
        table.add_column(col, justify="right" if "wall" in col or "CPU" in col else "left")
    totals = {"v3_wall": 0.0, "probe_wall": 0.0, "v3_cpu": 0.0, "probe_cpu": 0.0}
    failed: list[str] = []
    for spec in suite.specs:
        if args.spec and spec.id not in args.spec:
            continue
        ws = materialize(suite, spec, home / "ws" / spec.id)
        replace = probes_for(spec.id, spec.app_slug)
        for old in [c for c in spec.checks if c.name in STRUCTURAL and c.name in replace]:
            new = Check(name=old.name, kind="probe", probe=replace[old.name])
            runs: dict[str, list[tuple[float, float, bool, str]]] = {"v3": [], "probe": []}
            for _ in range(args.reps):
                runs["v3"].append(timed(old, ws, cfg))
                runs["probe"].append(timed(new, ws, cfg))
            mean = {k: (statistics.mean(r[0] for r in v) * 1000, statistics.mean(r[1] for r in v) * 1000)
                    for k, v in runs.items()}
            ok = {k: all(r[2] for r in v) for k, v in runs.items()}
            if not ok["probe"]:
                failed.append(f"{spec.id}/{old.name}: {runs['probe'][-1][3]}")
            for k in ("v3", "probe"):
                totals[f"{k}_wall"] += mean[k][0]
                totals[f"{k}_cpu"] += mean[k][1]
            cells = [f"{mean['v3'][0]:.0f}", f"{mean['probe'][0]:.0f}"]
            cells += [f"{mean['v3'][1]:.0f}", f"{mean['probe'][1]:.0f}"] if cpu else []
            table.add_row(spec.id, old.name, str(new.probe.type if new.probe else ""), *cells,
                          f"{'pass' if ok['v3'] else 'FAIL'} / {'pass' if ok['probe'] else 'FAIL'}")
    keys = ("v3_wall", "probe_wall") + (("v3_cpu", "probe_cpu") if cpu else ())
    table.add_row("all", "total", "", *(f"{totals[k]:.0f}" for k in keys), "")
    console = Console()
    console.print(table)
    for line in failed:
        console.print(f"probe failed on a reference: {line}")


if __name__ == "__main__":
    main()
