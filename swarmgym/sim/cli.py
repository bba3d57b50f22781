"""``swarmgym-sim``: a goose local-edition stand-in with the same command line.

    swarmgym-sim swarm run PROMPT --output-format json [--mcp NAME]...
    swarmgym-sim swarm pool show [--json]
    swarmgym-sim swarm pool weight DEVICE WEIGHT
    swarmgym-sim swarm pool enable DEVICE
    swarmgym-sim swarm pool disable DEVICE

Environment: SWARMGYM_SIM_VARIANT (mlx|gguf), SWARMGYM_SIM_SEED (unset: a fresh seed per run),
SWARMGYM_SIM_START, SWARMGYM_SIM_FORCE, SWARMGYM_SIM_DEBUG, SWARMGYM_SIM_TIME_SCALE, SWARMGYM_SIM_FLEET,
SWARMGYM_SIM_POOL, SWARMGYM_SUITES_DIR; goose's own folders (GOOSE_PATH_ROOT, XDG_*, HOME — see
swarmgym.collect.goose_paths), flags and knobs.  See docs/simulator.md.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from swarmgym import __version__
from swarmgym.core.errors import SwarmgymError, UsageError
from swarmgym.sim.fleet import effective_devices, load_fleet, set_device


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="swarmgym-sim", description="Simulated goose local-edition swarm.")
    p.add_argument("--version", action="version", version=f"swarmgym-sim {__version__}")
    top = p.add_subparsers(dest="cmd", required=True)
    swarm = top.add_parser("swarm", help="swarm commands").add_subparsers(dest="sub", required=True)
    run = swarm.add_parser("run", help="run the swarm on a prompt in the current directory")
    run.add_argument("prompt")
    run.add_argument("--output-format", choices=["json", "text"], default="text")
    run.add_argument("--mcp", action="append", default=[], metavar="NAME")
    pool = swarm.add_parser("pool", help="show or change the device pool").add_subparsers(dest="action", required=True)
    show = pool.add_parser("show")
    show.add_argument("--json", action="store_true")
    w = pool.add_parser("weight")
    w.add_argument("device")
    w.add_argument("weight")
    for name in ("enable", "disable"):
        pool.add_parser(name).add_argument("device")
    return p


def _pool(args, env) -> int:
    fleet = load_fleet(env)
    if args.action == "show":
        devs = effective_devices(fleet, env)
        variant = env.get("SWARMGYM_SIM_VARIANT") or "mlx"
        if args.json:
            print(json.dumps([{"id": d.id, "host": d.host, "model_id": d.model_for(variant), "weight": int(d.weight),
                               "instances": d.instances, "enabled": d.enabled} for d in devs], indent=2))
        else:
            print(f"{'device':<14} {'host':<10} {'weight':>6} {'inst':>4}  {'enabled':<7} model")
            for d in devs:
                print(f"{d.id:<14} {d.host:<10} {int(d.weight):>6} {d.instances:>4}  {str(d.enabled).lower():<7} "
                      f"{d.model_for(variant)}")
        return 0
    if args.action == "weight":
        weight = int(args.weight) if args.weight.strip().isdigit() else -1
        if weight < 0 or weight > 2**32 - 1:  # goose's pool weight is a u32: the most tasks in flight at once
            raise UsageError(f"pool weight {args.device}: WEIGHT must be a number of tasks in flight at once "
                             f"(a whole number >= 0), got {args.weight!r}")
        path = set_device(fleet, env, args.device, weight=weight)
        print(f"{args.device}: weight {weight} (saved in {path})")
    else:
        path = set_device(fleet, env, args.device, enabled=args.action == "enable")
        print(f"{args.device}: {args.action}d (saved in {path})")
    return 0


def main(argv: list[str] | None = None) -> None:
    args, unknown = _parser().parse_known_args(argv)
    env = dict(os.environ)
    if unknown:
        print(f"swarmgym-sim: ignoring unsupported options: {' '.join(unknown)}", file=sys.stderr)
    try:
        if args.sub == "pool":
            code = _pool(args, env)
        else:
            from swarmgym.sim.run import simulate

            code = simulate(args.prompt, args.mcp, args.output_format, env, Path.cwd(), sys.stdout, sys.stderr)
    except SwarmgymError as e:
        print(f"swarmgym-sim: {e}", file=sys.stderr)
        code = e.exit_code
    sys.exit(code)
