"""What does the check box cost?  Plain ``bash -c`` vs ``run_sandboxed`` with ``none`` vs ``bwrap``.

Part 1 runs the same commands — ``true`` and the golden checks of a bench-v1 spec against its
reference app — N times each way, interleaved, in the same workspace, and prints one table of mean
wall times with the added milliseconds and ratios against plain (``bwrap`` is the allowlist box of
issue #20), then ``bwrap … true`` alone for the allowlist box and the first round's hide-list box.  Part 2 (``--tables``, on by default) times each bench-v2 golden table against its
reference app in the bwrap check box, interleaved: *before* — the in-process driver of
``--baseline`` (git history; the whole table, golden values included, inside the box) — and *after*
— the driver that gets inputs only and forks (``steps_per_fork`` 32, the default, and 1: a fork per
row), plus the harness's comparison outside the box.  Part 3 (``--campaign``, on by default) runs a
whole ``swarmgym bench --tier light --swarm sim`` with ``--isolation none`` and with ``--isolation
bwrap`` (alternating, ``--campaign-reps`` times) and prints wall seconds and the ratio.
Goals (issues #9, #20): ≤ 15 ms added per check by the box over ``none``, the table no slower than
before, ≤ 5 % on a campaign.

    python benchmarks/checks.py [--reps 10] [--spec compute] [--table-reps 3] [--baseline f362c5f]
                                [--no-tables] [--campaign-reps 1] [--no-campaign] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console
from rich.table import Table

from swarmgym.config import load_config
from swarmgym.isolation import check_policy, resolve
from swarmgym.isolation.sandbox import Limits, run_sandboxed, scrubbed_env
from swarmgym.suitekit.suite import load_suite, materialize

MODES = ("plain", "none", "bwrap")


def plain(command: str, cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    code = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False).returncode
    return time.perf_counter() - start, code


def boxed(command: str, cwd: Path, cfg, backend: str, limits: Limits) -> tuple[float, int]:
    start = time.perf_counter()
    res = run_sandboxed(command, cwd, timeout=cfg.checks.timeout, limits=limits, policy=check_policy(cfg, cwd, limits),
                        backend=backend, env_extra=cfg.checks.env)
    return time.perf_counter() - start, res.exit_code if res.exit_code is not None else -1


def per_check(args, console: Console) -> dict:
    home = Path(tempfile.mkdtemp(prefix="swarmgym-bench-home-"))
    cfg = load_config(home, environ={})
    resolve("bwrap")  # probe once, outside the timings; raises one line if bubblewrap cannot run here
    suite = load_suite(cfg.suite, cfg.suites_dir)
    spec = suite.spec(args.spec)
    commands = [("true", "true")] + [(c.name, c.run) for c in spec.checks_for(hard=True)
                                     if c.kind == "command_succeeds" and not c.name.startswith("tests_")]
    limits = Limits.from_config(cfg.checks)
    env = {**scrubbed_env(), **cfg.checks.env}  # same PATH for every mode: the difference is the box alone
    table = Table(title=f"check isolation overhead: {args.reps} runs each, spec {spec.id} ({spec.app_slug} reference)")
    for col in ("check", "plain ms", "none ms", "bwrap ms", "none Δms", "bwrap Δms", "bwrap × plain", "bwrap × none"):
        table.add_column(col, justify="left" if col == "check" else "right")
    rows, totals = [], dict.fromkeys(MODES, 0.0)
    ws = materialize(suite, spec, home / "apps" / spec.app_slug / "bench")
    for name, command in commands:
        runs = {m: [] for m in MODES}
        for m in MODES:  # warm up caches
            plain(command, ws, env) if m == "plain" else boxed(command, ws, cfg, m, limits)
        for _ in range(args.reps):  # interleave so drift hits every mode alike
            for m in MODES:
                t, code = plain(command, ws, env) if m == "plain" else boxed(command, ws, cfg, m, limits)
                runs[m].append(t * 1000)
                if code != 0:
                    console.print(f"[red]{name}: exit {code} under {m}[/]")
        mean = {m: statistics.mean(v) for m, v in runs.items()}
        for m in MODES:
            totals[m] += mean[m]
        rows.append({"check": name, **{f"{m}_ms": round(mean[m], 2) for m in MODES}})
        table.add_row(name, *(f"{mean[m]:.1f}" for m in MODES), f"{mean['none'] - mean['plain']:+.1f}",
                      f"{mean['bwrap'] - mean['plain']:+.1f}", f"{mean['bwrap'] / mean['plain']:.2f}",
                      f"{mean['bwrap'] / mean['none']:.2f}")
    n = len(commands)
    table.add_section()
    table.add_row("mean per check", *(f"{totals[m] / n:.1f}" for m in MODES),
                  f"{(totals['none'] - totals['plain']) / n:+.1f}", f"{(totals['bwrap'] - totals['plain']) / n:+.1f}",
                  f"{totals['bwrap'] / totals['plain']:.2f}", f"{totals['bwrap'] / totals['none']:.2f}")
    console.print(table)
    return {"checks": rows, "added_ms_per_check": {"none": round((totals["none"] - totals["plain"]) / n, 2),
                                                  "bwrap": round((totals["bwrap"] - totals["plain"]) / n, 2),
                                                  "bwrap_vs_none": round((totals["bwrap"] - totals["none"]) / n, 2)}}


def first_round_argv(policy, argv: list[str]) -> list[str]:
    """The first round's hide-list box for ``policy`` (the whole system read-only, an empty tmpfs over
    each hidden path, read-only and writable paths bound back in) — rebuilt here only to time it."""
    from swarmgym.isolation.bwrap import BwrapBackend

    out = [BwrapBackend().binary() or "bwrap", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
           "--unshare-cgroup-try", "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
           "--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--tmpfs", "/tmp", "--unshare-net"]
    for p in sorted({*policy.hidden}, key=lambda p: len(p.parts)):
        if p.is_dir():
            out += ["--tmpfs", str(p)]
    for p in [*policy.read_only, *policy.writable, policy.workspace]:
        if p.exists():
            out += ["--bind" if p == policy.workspace else "--ro-bind", str(p), str(p)]
    return out + ["--chdir", str(policy.workspace), "--", *argv]


def per_box_start(args, console: Console) -> dict:
    """``bwrap … true`` alone: the allowlist box against the first round's hide-list box, interleaved."""
    from swarmgym.isolation.bwrap import BwrapBackend

    home = Path(tempfile.mkdtemp(prefix="swarmgym-bench-box-"))
    cfg = load_config(home, environ={})
    ws = home / "ws"
    ws.mkdir()
    policy = check_policy(cfg, ws)
    modes = {"plain true": ["true"], "first-round box": first_round_argv(policy, ["true"]),
             "allowlist box": BwrapBackend().wrap(["true"], policy)}
    runs: dict[str, list[float]] = {m: [] for m in modes}
    for _ in range(args.reps * 3):
        for m, argv in modes.items():
            start = time.perf_counter()
            subprocess.run(argv, check=True, stdin=subprocess.DEVNULL)
            runs[m].append((time.perf_counter() - start) * 1000)
    table = Table(title=f"box start alone: {args.reps * 3} runs each of `true`")
    for col in ("what", "median ms", "mean ms"):
        table.add_column(col, justify="left" if col == "what" else "right")
    for m, v in runs.items():
        table.add_row(m, f"{statistics.median(v):.1f}", f"{statistics.mean(v):.1f}")
    console.print(table)
    return {"box_start_ms": {m: round(statistics.median(v), 2) for m, v in runs.items()}}


def baseline_driver(commit: str) -> str:
    """The in-process driver's source at ``commit`` (from git: the benchmark alone keeps it runnable)."""
    root = Path(__file__).resolve().parent.parent
    res = subprocess.run(["git", "-C", str(root), "show", f"{commit}:swarmgym/grading/difftable_driver.py"],
                         capture_output=True, text=True, check=False)
    if res.returncode != 0 or "def run_inproc" not in res.stdout:
        raise SystemExit(f"--baseline {commit}: no in-process driver there ({res.stderr.strip()[:200]})")
    return res.stdout


def per_table(args, console: Console) -> dict:
    from swarmgym.grading import difftable
    from swarmgym.grading.context import GradingContext

    home = Path(tempfile.mkdtemp(prefix="swarmgym-bench-tables-"))
    cfg = load_config(home, environ={}, overrides={"sandbox.backend": "bwrap"})
    old_src = baseline_driver(args.baseline)
    suite = load_suite("bench-v2", cfg.suites_dir)
    modes = ("before", "after", "fork per row")
    table = Table(title=f"golden tables in the bwrap check box: {args.table_reps} runs each, reference apps "
                        f"(before = in-process driver of {args.baseline})")
    for col in ("table", "rows", "steps", *(f"{m} s" for m in modes), "after × before", "per row × before"):
        table.add_column(col, justify="left" if col == "table" else "right")
    out, totals = [], dict.fromkeys(modes, 0.0)
    for spec in suite.specs:
        ws = materialize(suite, spec, home / "apps" / spec.app_slug / "bench")
        grading = GradingContext(workspace=ws, cfg=cfg)  # the check box every check of a grading runs in

        def box(cmd: str, cap: int, g: GradingContext = grading):
            return g.box(cmd, timeout=600, output_cap=cap)

        for c in (c for c in spec.checks if c.kind == "differential"):
            tab = difftable.load_table(c.table_file(), str(c.module))
            old_cmd = ("python3 - <<'SWARMGYM_OLD_EOF'\n" + old_src + f"\nTABLE = {json.dumps(tab)!r}\n"
                       "sys.exit(main(json.loads(TABLE), 'inproc'))\nSWARMGYM_OLD_EOF\n")

            def after(per_fork: int, t=tab, run=box) -> bool:  # what the differential kind does: fast path, confirmations, compare
                graded = difftable.grade(t, lambda cmd: run(cmd, difftable.RESULT_CAP), timeout=600, whole_box=True,
                                         steps_per_fork=per_fork)
                return difftable.summarize(graded.summary)[0]

            runs: dict[str, list[float]] = {m: [] for m in modes}
            for _ in range(args.table_reps):  # interleaved, so drift hits every mode alike
                for m in modes:
                    start = time.perf_counter()
                    if m == "before":
                        ok = box(old_cmd, 1 << 20).exit_code == 0
                    else:
                        ok = after(difftable.STEPS_PER_FORK if m == "after" else 1)
                    runs[m].append(time.perf_counter() - start)
                    if not ok:
                        console.print(f"[red]{spec.id} {c.name}: the reference app failed under {m}[/]")
            mean = {m: statistics.mean(v) for m, v in runs.items()}
            for m in modes:
                totals[m] += mean[m]
            steps = sum(len(r["steps"]) for r in tab["rows"])
            out.append({"table": f"{spec.id}/{c.name}", "rows": len(tab["rows"]), "steps": steps,
                        **{f"{m.replace(' ', '_')}_s": round(mean[m], 3) for m in modes}})
            table.add_row(f"{spec.id}/{c.name}", str(len(tab["rows"])), str(steps), *(f"{mean[m]:.2f}" for m in modes),
                          f"{mean['after'] / mean['before']:.2f}", f"{mean['fork per row'] / mean['before']:.2f}")
    table.add_section()
    table.add_row("all tables", "", "", *(f"{totals[m]:.2f}" for m in modes), f"{totals['after'] / totals['before']:.2f}",
                  f"{totals['fork per row'] / totals['before']:.2f}")
    console.print(table)
    return {"tables": out, "tables_total_s": {m: round(v, 3) for m, v in totals.items()},
            "after_vs_before": round(totals["after"] / totals["before"], 3)}


def campaign(isolation: str) -> float:
    with tempfile.TemporaryDirectory(prefix="swarmgym-bench-camp-") as home:
        env = {**os.environ, "SWARMGYM_HOME": home}
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "swarmgym", "bench", "--tier", "light", "--variant", "mlx", "--swarm",
                        "sim", "--isolation", isolation], env=env, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start


def per_campaign(args, console: Console) -> dict:
    walls: dict[str, list[float]] = {"none": [], "bwrap": []}
    for _ in range(args.campaign_reps):
        for iso, ws in walls.items():
            ws.append(campaign(iso))
    mean = {k: statistics.mean(v) for k, v in walls.items()}
    table = Table(title=f"bench --tier light --swarm sim, {args.campaign_reps} campaign(s) each")
    for col in ("isolation", "wall s (mean)", "runs"):
        table.add_column(col, justify="right")
    for iso, ws in walls.items():
        table.add_row(iso, f"{mean[iso]:.1f}", ", ".join(f"{w:.1f}" for w in ws))
    table.add_section()
    table.add_row("bwrap × none", f"{mean['bwrap'] / mean['none']:.3f}", f"{(mean['bwrap'] / mean['none'] - 1) * 100:+.1f} %")
    console.print(table)
    return {"campaign_wall_s": {k: round(v, 2) for k, v in mean.items()}, "ratio": round(mean["bwrap"] / mean["none"], 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10, help="runs per command and mode (default 10)")
    ap.add_argument("--spec", default="compute", help="bench-v1 spec whose golden checks to time (default compute)")
    ap.add_argument("--table-reps", type=int, default=3, help="runs per golden table and driver (default 3)")
    ap.add_argument("--baseline", default="f362c5f", help="commit whose in-process driver is 'before' (default f362c5f)")
    ap.add_argument("--no-tables", action="store_true", help="skip the golden-table comparison")
    ap.add_argument("--campaign-reps", type=int, default=1, help="light campaigns per isolation (default 1)")
    ap.add_argument("--no-campaign", action="store_true", help="skip the whole-campaign comparison")
    ap.add_argument("--json", action="store_true", help="also print the numbers as one JSON object")
    args = ap.parse_args()
    console = Console()
    out = per_check(args, console)
    out.update(per_box_start(args, console))
    if not args.no_tables:
        out.update(per_table(args, console))
    if not args.no_campaign:
        out.update(per_campaign(args, console))
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
