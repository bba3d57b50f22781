"""bench-v6's redrawn tables (seed 2026): bench-v5's tables (both tiers) of the specs whose rows are command
sequences, drawn again as a tree, so that rows sharing a prefix of commands share its run (issue #30).

bench-v5's rows were drawn one at a time: a row of seven steps costs seven steps, and few rows begin alike
(sharing prefixes runs 92 % of their steps).  Here every row is a path through one tree:

1. **Spines**: bench-v5's own multi-step rows of the table (no input files, no stdin, no working folder, no
   CPU budget), each a walk through the app's states.
2. **Leaves**: at every node of a spine (after its first ``k`` steps, ``k`` = 0 … its length) a seeded sample of
   :data:`LEAVES` steps from the table's whole step alphabet (every plain step of every bench-v5 row: each
   error sentence, calendar and number edge, case, line end, read), alone and followed by the step that followed
   it in its own row (the fresh read after a mutation).  A candidate row is the spine's first ``k`` steps and one
   leaf; it answers for the requirements and samples the edge classes of the leaf's own row (and of the spine's,
   when it holds the whole spine).
3. **Answers**: every candidate is run against the reference (the grading's driver, fork mode) and frozen as
   bench-v5 freezes a random sequence's step (:func:`gen_v5.freeze_step`: the reference's exit status, its
   exact stdout or JSON document where the step's own row compared it so, an error's shape only).  A candidate
   an independent correct app (``tests/fixtures/alt_apps*``, written from the prompt alone) answers otherwise
   asks more than the prompt fixes, and is dropped.
4. **Choice**: every mutant of the spec that bench-v5's table kills is run against every candidate and every
   bench-v5 row.  Rows are then chosen greedily, never one whose steps a chosen row holds whole or one holding a
   chosen row whole (a row is a sequence no other row repeats): first those killing the most still-living mutants per step
   they add to the tree, until every mutant bench-v5's table kills is killed; then, for every (requirement,
   edge class) pair a bench-v5 row samples, the cheapest row sampling it (so coverage keeps every hole
   closed, the ``largest`` rows with their CPU budgets among them); then leaves, cheapest first, among those
   the ones giving the app an input no chosen row gives it, spread over the commands, until the table has
   :data:`ROW_GOAL` times bench-v3's rows.

A chosen bench-v5 row is kept word for word (its id and frozen steps); a tree row's id is
``tree-<spine>-<k>-<leaf>``.  ``--check`` redraws in memory and compares with the frozen tables.

    python3 suites/bench-v6/gen/gen_v6.py --cache DIR   # from the repository root (about 40 minutes on 2 cores;
                                                     # with DIR kept, a change to the choice alone takes a minute)
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

SUITE = Path(__file__).resolve().parent.parent
REPO = SUITE.parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(SUITE.parent / "bench-v5" / "gen"))

import gen_v5  # noqa: E402

from swarmgym.grading import difftable, rowmatch  # noqa: E402
from swarmgym.suitekit.suite import load_suite, materialize  # noqa: E402

SEED = 2026
V3 = SUITE.parent / "bench-v3" / "tables"
V5 = SUITE.parent / "bench-v5" / "tables"
#: the tables redrawn (each table of a spec whose rows are command sequences, both tiers) -> the spec's id
REDRAWN = {"orderfsm": "fsm", "invtrack": "crud", "txkvbench": "txn", "libloan": "modular", "splitpay": "money",
           "todokit": "extend", "todokit-old": "extend", "orderfsm-hard": "fsm", "invtrack-hard": "crud",
           "txkvbench-hard": "txn", "libloan-hard": "modular", "splitpay-hard": "money", "todokit-hard": "extend"}
#: apps that must answer every row of a table as the reference does (the starter: the old behaviour kept)
AGREE = {"todokit-old": ["starter"]}
#: an independent correct app per app (written from the prompt alone; every row it fails asks too much)
INDEPENDENT = {"invtrack": "alt_apps/invtrack", "txkvbench": "alt_apps/txkvbench", "splitpay": "alt_apps_v3/splitpay",
               "libloan": "alt_apps_v3/libloan", "orderfsm": "alt_apps_v3/orderfsm", "todokit": "alt_apps_v3/todokit"}
SPINES = 14  # spines drawn per table
LEAVES = 9  # leaves drawn per node
ROW_GOAL = 5.0  # rows per table, times bench-v3's rows of the same table
OUT_MODES = {"exact", "json", "value", "any"}


def plain(st: dict[str, Any]) -> bool:
    """A step that can run anywhere in a sequence: no stdin, working folder, files read back or CPU budget."""
    return st.get("stdin") is None and not st.get("cwd") and not st.get("files") and "budget_s" not in st


def unfrozen(st: dict[str, Any]) -> dict[str, Any]:
    """A frozen bench-v5 step as a step to answer again (its inputs and how its row compared stdout)."""
    out = st["out"] if st["out"] in OUT_MODES else "any"
    return {"argv": st["argv"], "out": out, "exit": "ref"}


def step_key(st: dict[str, Any]) -> str:
    """What a step gives the app: its arguments (every step here has no stdin, folder or files)."""
    return json.dumps(st["argv"])


def candidates(rows: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """Tree rows: the first ``k`` steps of a spine, then one leaf (a step and the step after it in its row)."""
    spines = [r for r in rows if len(r["steps"]) > 1 and not r.get("files_in") and all(map(plain, r["steps"]))]
    leaves: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {}
    for r in rows:
        if r.get("files_in"):
            continue
        for i, st in enumerate(r["steps"]):
            nxt = r["steps"][i + 1] if i + 1 < len(r["steps"]) else None
            if plain(st) and step_key(st) not in leaves:
                leaf = [unfrozen(st)] + ([unfrozen(nxt)] if nxt is not None and plain(nxt) else [])
                leaves[step_key(st)] = (leaf, r)
    alphabet = sorted(leaves)
    out = []
    for spine in rng.sample(spines, min(SPINES, len(spines))):
        prefix = [unfrozen(st) for st in spine["steps"]]
        for k in range(len(prefix) + 1):
            whole = [spine] if k == len(prefix) else []  # a row holding the whole spine samples what it samples
            for i, key in enumerate(rng.sample(alphabet, min(LEAVES, len(alphabet)))):
                leaf, src = leaves[key]
                tags = {"req": sorted({q for r in [src, *whole] for q in r["req"]}),
                        "edges": sorted({e for r in [src, *whole] for e in r.get("edges", [])})}
                out.append({"id": f"tree-{spine['id']}-{k}-{i}", **tags, "steps": prefix[:k] + leaf[:1]})
                if len(leaf) > 1:  # and with the read after it (at most one of the two is chosen)
                    out.append({"id": f"tree-{spine['id']}-{k}-{i}r", **tags, "steps": prefix[:k] + leaf})
    return out


def freeze(slug: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The candidates the reference answers in a form the prompt fixes, frozen (the others dropped)."""
    got = gen_v5.run_reference(slug, rows)
    frozen = []
    for n, r in enumerate(rows):
        try:
            steps = [gen_v5.freeze_step(f"{slug} row {r['id']} step {k}", st, got[n]["steps"][k], False)
                     for k, st in enumerate(r["steps"])]
        except SystemExit:  # a step the reference answers otherwise than its own row's comparison allows
            continue
        frozen.append({**r, "steps": steps})
    return frozen


def failing(slug: str, rows: list[dict[str, Any]], app: Path) -> set[int]:
    """The rows ``app`` (a folder) fails on the fast path, compared outside as grading compares."""
    cmd = difftable.command(difftable.box_inputs({"module": slug, "rows": rows}, range(len(rows)), "fork",
                                                 step_timeout=60, deadline_s=3600))
    p = subprocess.run(["bash", "-c", cmd], cwd=app, capture_output=True, text=True, check=False,
                       env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"})
    got = difftable.parse(p.stdout) or {}
    return {n for n, r in enumerate(rows) if rowmatch.row_problem(r, got.get(n), 60)}


def prefixes(row: dict[str, Any]) -> list[tuple[str, ...]]:
    keys = [json.dumps(row.get("files_in") or {}, sort_keys=True)] + [json.dumps(st) for st in row["steps"]]
    return [tuple(keys[:i + 2]) for i in range(len(row["steps"]))]


def choose(old: list[dict[str, Any]], tree: list[dict[str, Any]], kills: dict[int, set[str]], goal: int,
           rng: random.Random) -> list[dict[str, Any]]:
    """Rows of ``old + tree`` (``kills``: index -> mutants it kills): mutants first, then every (requirement,
    edge class) pair of ``old``, then tree leaves up to ``goal`` rows (see the module's docstring)."""
    pool = old + tree
    chosen: list[int] = []
    nodes: set[tuple[str, ...]] = set()  # every prefix of a chosen row
    ends: set[tuple[str, ...]] = set()  # every chosen row

    def cost(n: int) -> int:
        return sum(1 for p in prefixes(pool[n]) if p not in nodes)

    def open_(n: int) -> bool:
        """Not yet chosen, and neither a prefix of a chosen row nor one's extension: a row whose every step
        another row runs and compares adds nothing (each row is a sequence no other row holds whole)."""
        paths = prefixes(pool[n])
        return paths[-1] not in nodes and not any(p in ends for p in paths)

    def take(n: int) -> None:
        chosen.append(n)
        nodes.update(prefixes(pool[n]))
        ends.add(prefixes(pool[n])[-1])

    left = set().union(*kills.values()) if kills else set()
    while left:
        best = max((n for n in kills if open_(n) and kills[n] & left),
                   key=lambda n: (len(kills[n] & left) / max(1, cost(n)), -n))
        take(best)
        left -= kills[best]
    pairs = {(q, e) for r in old for q in r["req"] for e in r.get("edges") or [""]}
    def samples(n: int, pair: tuple[str, str]) -> bool:
        return pair[0] in pool[n]["req"] and pair[1] in (pool[n].get("edges") or [""])

    for pair in sorted(pairs):
        if not any(samples(n, pair) for n in chosen):
            take(min((n for n in range(len(pool)) if open_(n) and samples(n, pair)), key=lambda n: (cost(n), n)))
    leaves = list(range(len(old), len(pool)))
    rng.shuffle(leaves)
    used: dict[str, int] = {}

    def command(n: int) -> str:
        argv = [a for a in pool[n]["steps"][-1]["argv"] if not a.startswith("{") and not a.startswith("-")]
        return argv[0] if argv else ""

    asked = {step_key(st) for n in chosen for st in pool[n]["steps"]}

    def asks_anew(n: int) -> int:
        """0 if a step of row ``n`` gives the app an input no chosen row gives it, else 1 (new inputs first)."""
        return 0 if any(step_key(st) not in asked for st in pool[n]["steps"]) else 1

    while len(chosen) < goal and any(map(open_, leaves)):
        best = min((n for n in leaves if open_(n)), key=lambda n: (cost(n), asks_anew(n), used.get(command(n), 0)))
        used[command(best)] = used.get(command(best), 0) + 1
        asked.update(step_key(st) for st in pool[best]["steps"])
        take(best)
    return [pool[n] for n in sorted(chosen)]


def redraw(name: str, workers: int = 2, cache: Path | None = None) -> list[dict[str, Any]]:
    """The chosen rows of the table ``name`` (``cache``: a folder keeping the answered tree and the mutants' kills,
    so a change to the choice alone needs no new run)."""
    old = json.loads((V5 / f"{name}.json").read_text())["rows"]
    kept = cache / f"{name}.json" if cache else None
    if kept and kept.is_file():
        tree, kills = json.loads(kept.read_text())
        kills = {int(n): set(k) for n, k in kills.items()}
    else:
        tree, kills = answered(name, old, random.Random(f"{SEED}-{name}"), workers)
        if kept:
            kept.write_text(json.dumps([tree, {n: sorted(k) for n, k in kills.items()}]))
    goal = round(ROW_GOAL * len(json.loads((V3 / f"{name}.json").read_text())["rows"]))
    chosen = choose(old, tree, kills, goal, random.Random(f"{SEED}-{name}"))  # its own: a cached tree draws alike
    mutants = set().union(*kills.values()) if kills else set()
    print(f"{name}: {len(chosen)} rows ({sum(1 for r in chosen if not r['id'].startswith('tree-'))} from bench-v5), "
          f"{len(mutants)} mutants killed as bench-v5's table kills them")
    return chosen


def answered(name: str, old: list[dict[str, Any]], rng: random.Random,
             workers: int) -> tuple[list[dict[str, Any]], dict[int, set[str]]]:
    """The tree's candidates of the table ``name`` as the reference answers them (those the independent app, or
    an app of :data:`AGREE`, answers otherwise dropped), and which mutants each row of ``old + tree`` kills
    (only mutants ``old`` kills are run)."""
    spec_id, slug = REDRAWN[name], name.split("-")[0]
    tree = freeze(slug, candidates(old, rng))
    apps = [REPO / "tests" / "fixtures" / INDEPENDENT[slug]] + [SUITE / "apps" / slug / a for a in AGREE.get(name, [])]
    alt = set().union(*(failing(slug, tree, app) for app in apps))
    tree = [r for n, r in enumerate(tree) if n not in alt]
    print(f"{name}: {len(tree)} tree rows answered ({len(alt)} dropped, answered otherwise by "
          f"{' or '.join(str(a.relative_to(REPO)) for a in apps)})")
    suite = load_suite("bench-v5", SUITE.parent)
    spec = suite.spec(spec_id)
    pool = old + tree

    def killed_by(mutant: Any) -> tuple[str, set[int]]:
        with tempfile.TemporaryDirectory() as d:
            app = materialize(suite, spec, Path(d) / slug, mutant)
            if not failing(slug, old, app):
                return mutant.name, set()
            return mutant.name, failing(slug, pool, app)

    kills: dict[int, set[str]] = {}
    with ThreadPoolExecutor(workers) as ex:
        for name, rows in ex.map(killed_by, suite.mutants(spec)):
            for n in rows:
                kills.setdefault(n, set()).add(name)
    return tree, kills


def write(name: str, rows: list[dict[str, Any]]) -> None:
    path = SUITE / "tables" / f"{name}.json"
    path.write_text(json.dumps({"generator": "gen/gen_v6.py", "seed": SEED, "rows": rows}, indent=1,
                               ensure_ascii=False) + "\n")
    print(f"{path.relative_to(SUITE)}: {len(rows)} rows")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tables", nargs="*", default=sorted(REDRAWN), help="the tables to redraw (default: all)")
    ap.add_argument("--check", action="store_true", help="redraw in memory and compare with the frozen tables")
    ap.add_argument("--cache", type=Path, help="a folder keeping each table's answered tree and kills between runs")
    args = ap.parse_args()
    if args.cache:
        args.cache.mkdir(parents=True, exist_ok=True)
    for name in args.tables:
        rows = redraw(name, cache=args.cache)
        if args.check:
            frozen = json.loads((SUITE / "tables" / f"{name}.json").read_text())["rows"]
            if frozen != rows:
                print(f"{name}: the frozen table differs from a redraw")
                return 1
        else:
            write(name, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
