"""Wall and CPU time of the test tiers and of a ``swarmgym`` command's start-up, side by side in one run.

    python benchmarks/tiers.py [--tiers fast,full] [--starts 10] [--pytest-args=ARGS] [--json]

Tiers (each ``python -m pytest -q`` from the repo root under ``/usr/bin/time -v``): ``fast`` is
``-m "not slow" -n 2`` (the fast tier as documented), ``full`` is ``-n 2`` (everything on both cores: the
README's test command, what CI runs); ``fast-serial`` and ``full-serial`` are the same without ``-n 2`` (how
CI ran before issue 29).  Prints wall time, CPU time (``cpuacct``: every process the tier started, counted in
a cgroup v1 CPU-accounting group of its own; elsewhere ``rusage``: user + sys of pytest and the processes it
waited for, which misses what xdist workers start), peak RSS, pytest's closing line and the ratio fast / full.
``--pytest-args=ARGS`` adds arguments to every tier (``--pytest-args=--junitxml=full.xml`` keeps each test's
time).  Then times ``--starts`` runs of ``python -m swarmgym --help`` against the import of the scientific
stack alone (``scipy.stats`` + ``scipy.optimize``, what the CLI loaded at start before issue 23): the median
of each and their ratio.  Take the numbers on an idle machine with ``CI=true``: a shared one only gives upper
bounds (docs/testing.md says which were taken how).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TIERS = {"fast": ["-m", "not slow", "-n", "2"], "full": ["-n", "2"],
         "fast-serial": ["-m", "not slow", "-n", "0"], "full-serial": ["-n", "0"]}


#: cgroup v1's CPU accounting: every process the tier starts (xdist workers, Celery fleets, boxes — whose own
#: cgroups are in the pids and memory hierarchies only) stays in the tier's cpuacct group
CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def cpu_group(name: str) -> Path | None:
    """A fresh cpuacct cgroup for one tier, or None where there is none to make (cgroup v2, no root)."""
    try:
        group = CPUACCT / f"swarmgym-tiers-{os.getpid()}-{name}"
        group.mkdir()
        return group
    except OSError:
        return None


def run_tier(name: str, argv_extra: list[str]) -> dict:
    argv = ["/usr/bin/time", "-v", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TIERS[name],
            *argv_extra]
    group = cpu_group(name)

    def join() -> None:  # in the child, before exec: it and everything it starts count in the group
        if group is not None:
            (group / "cgroup.procs").write_text(str(os.getpid()))

    t0 = time.monotonic()
    p = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=False, preexec_fn=join)
    wall = time.monotonic() - t0
    err = p.stderr

    def field(label: str) -> str:
        m = re.search(rf"{re.escape(label)}: (.+)", err)
        return m.group(1).strip() if m else "?"

    closing = next((line for line in reversed(p.stdout.splitlines()) if " in " in line and ("passed" in line
                    or "failed" in line)), "?")
    # without the group: user + sys of pytest and the processes it waited for (xdist workers' own children
    # are not always among them, so this undercounts under -n 2)
    cpu = float(field("User time (seconds)") or 0) + float(field("System time (seconds)") or 0)
    source = "rusage"
    if group is not None:
        cpu, source = int((group / "cpuacct.usage").read_text()) / 1e9, "cpuacct"
        with contextlib.suppress(OSError):
            group.rmdir()  # only once every process of the tier is gone
    return {"tier": name, "exit": p.returncode, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "cpu_from": source,
            "max_rss_mb": round(int(field("Maximum resident set size (kbytes)")) / 1024) if field(
                "Maximum resident set size (kbytes)").isdigit() else None, "pytest": closing.strip("= ")}


def median_start(code: list[str], n: int) -> float:
    times = []
    for _ in range(n):
        t0 = time.monotonic()
        subprocess.run([sys.executable, *code], cwd="/", capture_output=True, check=False)
        times.append(time.monotonic() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiers", default="fast,full",
                    help="comma-separated: fast, full (-n 2: the documented commands), fast-serial, full-serial "
                         "(or none)")
    ap.add_argument("--starts", type=int, default=10, help="runs of each start-up measurement")
    ap.add_argument("--pytest-args", default="",
                    help="more pytest arguments for every tier, after an = sign (--pytest-args=--junitxml=F)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = [run_tier(t, a.pytest_args.split()) for t in a.tiers.split(",") if t in TIERS]
    cli = median_start(["-m", "swarmgym", "--help"], a.starts)
    sci = median_start(["-c", "import scipy.stats, scipy.optimize"], a.starts)
    out = {"tiers": rows, "cli_start_s": round(cli, 3), "scipy_import_s": round(sci, 3)}
    if a.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{'tier':<11} {'exit':>4} {'wall s':>8} {'cpu s':>8} {'from':>7} {'rss MB':>7}  pytest")
    for r in rows:
        print(f"{r['tier']:<11} {r['exit']:>4} {r['wall_s']:>8} {r['cpu_s']:>8} {r['cpu_from']:>7} "
              f"{r['max_rss_mb'] or '?':>7}  {r['pytest']}")
    by = {r["tier"]: r for r in rows}
    if {"fast", "full"} <= by.keys() and by["full"]["wall_s"]:
        print(f"fast / full wall: {by['fast']['wall_s'] / by['full']['wall_s']:.2f}")
    print(f"\n`swarmgym --help` start (median of {a.starts}): {cli:.3f} s; "
          f"scipy.stats + scipy.optimize import alone: {sci:.3f} s (ratio {sci / cli:.2f})")


if __name__ == "__main__":
    main()
