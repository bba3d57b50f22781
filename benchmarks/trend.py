"""How fast does change detection flag a drop, and how often does it cry wolf? (issue #22, docs/trend.md)

60 nightly campaigns of one arm (a schedule: ``nightly``, variant ``mlx`` on the simulator); from night 40
on, the swarm is a new build whose pass rate is ``--drop`` lower.  The drop is injected through the
simulator's own knob: a fleet file (``SWARMGYM_SIM_FLEET``) whose variant crashes more often — the crash
rate is solved for so the fault model's pass rate falls by exactly ``--drop``.

**Simulation (default).**  Each night's job outcomes are drawn from the simulator's fault model — the
same functions ``swarmgym-sim`` decides a run's faults with (:func:`swarmgym.sim.faults.rates_for`,
``draw_faults``, ``resolve``; a code fault breaks the app when the spec has a mutant of that kind, as the
sim's ``pick_mutant`` finds it; a narrator or a hang breaks it too), with the schedule's seeds (night n:
seeds n·1000 + rep).  The outcomes become session records in a real ledger (one per repetition), and the
real finalize (:func:`swarmgym.campaigns.finalize.finish`: baseline, exact tests, FDR, verdict, campaign record) runs
after every night.  Running 60 real high-tier campaigns per repetition end to end would take days here.

**End to end (``--e2e``).**  A few real nights through ``swarmgym bench --schedule nightly`` on the
simulator (light tier, a big drop): every job a real sandboxed run, the alarm a real script.  It shows the
wiring, not the power.

    python benchmarks/trend.py [--repetitions 200] [--tier high] [--suite bench-v2] [--drop 0.15] [--json]
    python benchmarks/trend.py --e2e [--nights 8] [--drop-at 5] [--tier light] [--drop 0.6]
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
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from swarmgym.campaigns.plan import tier_shape  # noqa: E402
from swarmgym.models import TIERS  # noqa: E402
from swarmgym.sim.faults import draw_faults, pick_mutant, rates_for, resolve  # noqa: E402
from swarmgym.sim.fleet import DEFAULT_FLEET, load_fleet  # noqa: E402
from swarmgym.suitekit.suite import load_suite, packaged_suites_dir  # noqa: E402

VARIANT = "mlx"
SCHEDULE = "nightly"
CALIBRATION_SEEDS = 4000


class _NoDraw:
    """pick_mutant's rng, for asking only *whether* a mutant of a kind exists."""

    def random(self) -> float:
        return 0.0


_SUITES: dict[tuple[str, str], tuple] = {}


def suite_facts(suite_name: str, tier: str) -> tuple:
    """(suite, its hash, specs, reps, hard, {(spec, kind): a mutant exists}) — read once per process."""
    key = (suite_name, tier)
    if key not in _SUITES:
        suite = load_suite(suite_name, packaged_suites_dir())
        n_specs, reps = tier_shape(tier, len(suite.specs))
        hard = tier == "extreme"
        specs = suite.specs[:n_specs]
        mutant = {(s.id, k): pick_mutant(suite, s, k, _NoDraw(), hard) is not None  # type: ignore[arg-type]
                  for s in specs for k in ("liar", "stub", "crash")}
        _SUITES[key] = (suite, suite.hash, specs, reps, hard, mutant)
    return _SUITES[key]


class FaultModel:
    """What the simulator builds for a job: reference (functional) or a broken app."""

    def __init__(self, suite_name: str, tier: str, fleet_file: Path | None = None) -> None:
        self.suite, self.suite_hash, self.specs, self.reps, self.hard, self.mutant = suite_facts(suite_name, tier)
        env = {"SWARMGYM_SIM_FLEET": str(fleet_file)} if fleet_file else {}
        self.rates = rates_for(load_fleet(env), VARIANT, env, hard=self.hard)

    def prompt(self, spec) -> str:
        return spec.hard_prompt if self.hard else spec.prompt

    def functional(self, spec, seed: int) -> bool:
        code, runlevel = resolve(draw_faults(str(seed), self.prompt(spec), self.rates))
        broken = (code in ("liar", "stub", "crash") and self.mutant[(spec.id, code)]) or code == "narrator"
        return not (broken or "hang" in runlevel)

    def pass_rate(self, seeds: int = CALIBRATION_SEEDS) -> float:
        ok = sum(self.functional(s, seed) for seed in range(10**6, 10**6 + seeds) for s in self.specs)
        return ok / (seeds * len(self.specs))


def dropped_fleet(drop: float, suite: str, tier: str, out: Path) -> tuple[Path, float, float, float]:
    """A fleet file whose ``mlx`` crashes often enough that the pass rate falls by ``drop``.  Returns
    (path, crash rate, pass rate before, pass rate after)."""
    base_fleet = yaml.safe_load(DEFAULT_FLEET.read_text())
    before = FaultModel(suite, tier).pass_rate()
    crash0 = float(base_fleet["variants"][VARIANT]["faults"].get("crash", 0.0))

    def rate_with(crash: float) -> float:
        fleet = yaml.safe_load(DEFAULT_FLEET.read_text())
        fleet["variants"][VARIANT]["faults"]["crash"] = round(crash, 6)
        out.write_text(yaml.safe_dump(fleet, sort_keys=False))
        return FaultModel(suite, tier, out).pass_rate()

    lo, hi = crash0, 0.95
    for _ in range(18):  # bisection on the crash rate (common seeds: the pass rate is monotone in it)
        mid = (lo + hi) / 2
        if before - rate_with(mid) < drop:
            lo = mid
        else:
            hi = mid
    after = rate_with(hi)
    return out, hi, before, after


# --- simulation: real ledger, real finalize ---------------------------------------------------

def one_repetition(args: tuple) -> list[str]:
    """Verdicts of every night of one repetition (a fresh home and ledger)."""
    rep, nights, drop_at, suite, tier, fleet_file = args
    from swarmgym.campaigns.finalize import finish
    from swarmgym.campaigns.plan import Campaign, arm_seed, job_seed
    from swarmgym.config import load_config
    from swarmgym.ledger import Ledger
    from swarmgym.models import JobSpec, LedgerRecord, Provenance

    before, after = FaultModel(suite, tier), FaultModel(suite, tier, Path(fleet_file))
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(prefix="trend-bench-", dir=shm) as tmp:
        cfg = load_config(tmp, environ={})
        ledger = Ledger(cfg.ledger_dir)
        verdicts = []
        t0 = 1.79e9
        for night in range(nights):
            model = after if night >= drop_at else before
            build = "swarmgym-sim · fleet " + ("dropped" if night >= drop_at else "default")
            cid = f"sched-{SCHEDULE}-r{rep:04d}-n{night:02d}"
            created = t0 + night * 86400.0
            seed = rep * 1_000_000 + arm_seed(night)   # the seed rule: night n is the arm's n-th campaign
            jobs, recs = [], []
            for r in range(model.reps):
                for spec in model.specs:
                    jid = f"{cid}-{len(jobs):03d}"
                    jobs.append(JobSpec(job_id=jid, campaign_id=cid, suite=model.suite.name,
                                        suite_hash=model.suite_hash, spec=spec.id, app_slug=spec.app_slug,
                                        variant=VARIANT, tier=tier, rep=r, seq=len(jobs), seed=job_seed(seed, r)))
                    ok = model.functional(spec, job_seed(seed, r))
                    recs.append(LedgerRecord(
                        session_id=f"s-{jid}", job_id=jid, campaign_id=cid, mode="benchmark", spec=spec.id,
                        app_slug=spec.app_slug, variant=VARIANT, tier=tier, rep=r, suite=model.suite.name,
                        suite_hash=model.suite_hash, host="sim", overall="pass" if ok else "fail", functional=ok,
                        ts=created + len(recs), data={"started": created + len(recs)},
                        provenance=Provenance(adapter="sim", binary_version=build, seed=job_seed(seed, r),
                                              suite_hash=model.suite_hash, host="sim")))
            ledger.record_many(recs)
            camp = Campaign(campaign_id=cid, mode="queue", tier=tier, variant=VARIANT, suite=model.suite.name,
                            suite_hash=model.suite_hash, swarm="sim", created=created, schedule=SCHEDULE, jobs=jobs)
            rec = finish(cfg, ledger, camp)
            verdicts.append(rec.change.verdict if rec and rec.change else "?")
        return verdicts


def summarize(runs: list[list[str]], drop_at: int) -> dict:
    to_flag, missed, alarms, unchanged, wrong_way = [], 0, 0, 0, 0
    for verdicts in runs:
        for v in verdicts[1:drop_at]:          # night 0 has nothing to compare with
            unchanged += 1
            alarms += v in ("regressed", "improved")
            wrong_way += v == "improved"
        hit = next((i for i, v in enumerate(verdicts[drop_at:]) if v == "regressed"), None)
        if hit is None:
            missed += 1
        else:
            to_flag.append(hit + 1)             # flagged on the drop's own night = 1
    to_flag.sort()
    p90 = to_flag[min(len(to_flag) - 1, int(0.9 * len(to_flag)))] if to_flag else None
    return {"nights_to_flag_median": statistics.median(to_flag) if to_flag else None,
            "nights_to_flag_p90": p90, "nights_to_flag_mean": round(statistics.fmean(to_flag), 3) if to_flag else None,
            "missed": missed, "false_alarms": alarms, "false_alarms_improved": wrong_way,
            "unchanged_nights": unchanged, "false_alarm_rate": round(alarms / unchanged, 4) if unchanged else None}


def simulate(a) -> dict:
    with tempfile.TemporaryDirectory(prefix="trend-fleet-") as tmp:
        fleet, crash, before, after = dropped_fleet(a.drop, a.suite, a.tier, Path(tmp) / "fleet-dropped.yaml")
        t = time.monotonic()
        jobs = [(k, a.nights, a.drop_at, a.suite, a.tier, str(fleet)) for k in range(a.repetitions)]
        with ProcessPoolExecutor(max_workers=a.workers) as pool:
            runs = list(pool.map(one_repetition, jobs, chunksize=4))
        secs = time.monotonic() - t
    from swarmgym.config import TrendConfig

    tc = TrendConfig()
    specs, reps = suite_facts(a.suite, a.tier)[2:4]
    n_specs = len(specs)
    out = {"repetitions": a.repetitions, "tier": a.tier, "suite": a.suite, "runs_per_night": n_specs * reps,
           "nights": a.nights, "drop_at": a.drop_at, "drop": a.drop, "pass_rate_before": round(before, 4),
           "pass_rate_after": round(after, 4), "crash_rate_after": round(crash, 4),
           "alpha": tc.alpha, "spec_alpha": tc.spec_alpha, "windows": tc.windows, "pool": tc.pool,
           **summarize(runs, a.drop_at), "secs": round(secs, 1)}
    return out


def print_table(r: dict) -> None:
    print(f"change detection on the simulator: {r['repetitions']} repetitions x {r['nights']} nights, "
          f"tier {r['tier']} ({r['runs_per_night']} runs/night, suite {r['suite']})")
    print(f"drop from night {r['drop_at']}: pass rate {100 * r['pass_rate_before']:.1f}% -> "
          f"{100 * r['pass_rate_after']:.1f}% (fleet crash rate {r['crash_rate_after']}); "
          f"alpha {r['alpha']}, spec_alpha {r['spec_alpha']}, windows {r['windows']}, pool {r['pool']}")
    rows = [("nights to flag (median)", r["nights_to_flag_median"], "goal <= 3"),
            ("nights to flag (p90)", r["nights_to_flag_p90"], ""),
            ("nights to flag (mean)", r["nights_to_flag_mean"], ""),
            ("missed (never flagged)", f"{r['missed']} of {r['repetitions']}", ""),
            ("false alarms", f"{r['false_alarms']} of {r['unchanged_nights']} unchanged nights "
                             f"({r['false_alarms_improved']} 'improved')", ""),
            ("false alarm rate", f"{100 * (r['false_alarm_rate'] or 0):.2f}%", "goal <= 5%"),
            ("wall time", f"{r['secs']} s", "")]
    w = max(len(k) for k, _, _ in rows)
    for k, v, goal in rows:
        print(f"  {k:<{w}}  {v!s:<40} {goal}")


# --- end to end: real bench nights on the simulator --------------------------------------------

def e2e(a) -> dict:
    home = Path(tempfile.mkdtemp(prefix="trend-e2e-"))
    fleet, crash, before, after = dropped_fleet(a.drop, a.suite, a.tier, home / "fleet-dropped.yaml")
    (home / "config.yaml").write_text(yaml.safe_dump({"suite": a.suite, "schedules": [{
        "name": SCHEDULE, "cron": "0 2 * * *", "tier": a.tier, "variant": VARIANT,
        "on_change": ["sh", "-c", "cat > alarm-$(date +%s%N).json"]}]}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOSE_SWARM_", "SWARMGYM_"))}
    env.update(SWARMGYM_SIM_TIME_SCALE="0.005", SWARMGYM_SWARM_TIMEOUT="120")
    nights = []
    for night in range(a.nights):
        run_env = dict(env, **({"SWARMGYM_SIM_FLEET": str(fleet)} if night >= a.drop_at else {}))
        t = time.monotonic()
        p = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "bench", "--schedule", SCHEDULE,
                            "--parallel", "2"], env=run_env, capture_output=True, text=True, timeout=1800)
        change = next((ln for ln in p.stdout.splitlines() if ln.startswith("change:")), "?")
        alarm = next((ln for ln in p.stdout.splitlines() if ln.startswith("alarm")), "")
        nights.append({"night": night, "build": "dropped" if night >= a.drop_at else "default", "exit": p.returncode,
                       "secs": round(time.monotonic() - t, 1), "change": change, "alarm": alarm})
        print(f"night {night:2d} ({nights[-1]['build']:7s}, {nights[-1]['secs']:5.1f}s): {change}"
              + (f"\n          {alarm}" if alarm else ""), flush=not a.json)
    trend = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "trend", "--json"], env=env,
                           capture_output=True, text=True, timeout=300)
    return {"home": str(home), "tier": a.tier, "drop": a.drop, "pass_rate_before": round(before, 4),
            "pass_rate_after": round(after, 4), "nights": nights, "alarms": len(list(home.glob("alarm-*.json"))),
            "trend_points": sum(len(x["campaigns"]) for x in json.loads(trend.stdout)["arms"]) if trend.stdout else 0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repetitions", type=int, default=200)
    ap.add_argument("--nights", type=int, default=None, help="default 60 (e2e: 8)")
    ap.add_argument("--drop-at", type=int, default=None, help="first night of the new build (default 40; e2e: 5)")
    ap.add_argument("--drop", type=float, default=None, help="pass-rate drop of the new build (default 0.15; e2e: 0.6)")
    ap.add_argument("--tier", default=None, choices=list(TIERS), help="default high (e2e: light)")
    ap.add_argument("--suite", default="bench-v2")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--e2e", action="store_true", help="a few real nights through swarmgym bench on the simulator")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args()
    a.nights = a.nights or (8 if a.e2e else 60)
    a.drop_at = a.drop_at if a.drop_at is not None else (5 if a.e2e else 40)
    a.drop = a.drop if a.drop is not None else (0.6 if a.e2e else 0.15)
    a.tier = a.tier or ("light" if a.e2e else "high")
    if not 0 < a.drop_at < a.nights:
        ap.error(f"--drop-at {a.drop_at}: expected a night within 1..{a.nights - 1}")
    result = e2e(a) if a.e2e else simulate(a)
    if a.json:
        print(json.dumps(result, indent=1))
    elif not a.e2e:
        print_table(result)
    else:
        print(f"{result['alarms']} alarm(s) fired; {result['trend_points']} campaigns in `swarmgym trend`; "
              f"home: {result['home']}")


if __name__ == "__main__":
    main()
