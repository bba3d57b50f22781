"""Fleet benchmark: what the queue costs and how well it spreads work (real Redis, real workers).

    python benchmarks/fleet.py [--jobs 30] [--hosts 3] [--skip-sequential]

(a) makespan of one campaign with heterogeneous job durations over N simulated hosts, next to
    the ideal lower bound max(sum(d)/N, max(d)) (d = each job's measured duration in that run),
    the same jobs one after another (one host), and the same fleet with Celery's default
    prefetch settings (prefetch x4, early ack) instead of swarmgym's (prefetch 1, late ack);
(b) harness overhead per job, excluding the swarm's own time: dispatch gap (a host's previous
    job finished -> this one started: ack, fetch, lease, guard), collect + verify (job wall -
    swarm wall) and record (job finished -> ledger written), p50 / p95;
(c) CPU cost of the psutil sampler at 1 Hz over a 10-process tree.

Starts its own throwaway ``redis-server`` on a free port (no persistence), so it never meets the
queue tests or another benchmark on the same machine.  Durations are set per job through SWARMGYM_SIM_TIME_SCALE.
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

import redis
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from swarmgym.campaigns.plan import Campaign, plan_jobs, save_campaign  # noqa: E402
from swarmgym.config import load_config  # noqa: E402
from swarmgym.ledger import Ledger, campaign_job_id  # noqa: E402
from swarmgym.queue import dispatch, store  # noqa: E402
from swarmgym.queue.app import make_app  # noqa: E402
from swarmgym.queue.redis_util import for_config  # noqa: E402
from swarmgym.suitekit.suite import load_suite  # noqa: E402
from swarmgym.testing.localfleet import LocalFleet  # noqa: E402
from swarmgym.testing.localredis import LocalRedis  # noqa: E402
from swarmgym.workers.sampler import HostSampler  # noqa: E402

SCALES = [0.004, 0.05, 0.004, 0.2, 0.004, 0.6, 0.004, 0.05, 0.2, 0.004]  # heterogeneous swarm durations


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def make_home(root: Path, name: str, server: LocalRedis) -> Path:
    home = root / name
    home.mkdir()
    (home / "config.yaml").write_text(yaml.safe_dump({"queue": {
        "broker_url": server.url(0), "result_backend": server.url(1), "visibility_timeout": 3600, "lease_ttl": 30,
        "sample_hz": 1.0}}))
    return home


def run_campaign(home: Path, hosts: int, n_jobs: int, env: dict[str, str] | None = None) -> dict:
    cfg = load_config(home)
    for url in (cfg.queue.broker_url, cfg.result_url):
        redis.Redis.from_url(url).flushdb()
    app = make_app(cfg)
    fleet = LocalFleet(home, {"SWARMGYM_SIM_TIME_SCALE": "0.004", **(env or {})}, die_with_parent=True)
    try:
        names = [fleet.coordinator()] + [fleet.worker("mlx", f"h{i}") for i in range(hosts)]
        fleet.wait_ready(app, names, timeout=90)
        suite = load_suite(cfg.suite, cfg.suites_dir)
        cid = f"bench-{home.name}"
        jobs = plan_jobs(suite, "high", "mlx", campaign_id=cid)
        jobs = (jobs * (n_jobs // len(jobs) + 1))[:n_jobs]
        jobs = [j.model_copy(update={"job_id": f"{cid}-{i:03d}", "seq": i,
                                     "env": {"SWARMGYM_SIM_TIME_SCALE": str(SCALES[i % len(SCALES)])}})
                for i, j in enumerate(jobs)]
        camp = Campaign(campaign_id=cid, mode="queue", tier="high", variant="mlx", suite=suite.name,
                        suite_hash=suite.hash, jobs=jobs)
        save_campaign(cfg, camp)
        store.ensure_redis(for_config(cfg), camp)
        t0 = time.time()
        dispatch.send_jobs(app, cfg, cid, jobs, fresh=True)
        ledger_path = home / "ledger"
        while not (ledger_path.exists() and Ledger(ledger_path).has_job(campaign_job_id(cid))):
            if time.time() - t0 > 1800:
                raise TimeoutError(f"campaign {cid} did not finish")
            time.sleep(0.5)
        done_ts = {j: s.get("ts") for j, s in store.job_states(for_config(cfg), cid).items()}
        recs = Ledger(ledger_path).records(kind="session", campaign_id=cid)
    finally:
        fleet.stop_all()
    d, swarm, gaps, collect_verify, record = [], [], [], [], []
    by_host: dict[str, list] = {}
    for r in recs:
        st, fin = r.data["started"], r.data["finished"]
        d.append(fin - st)
        doc = json.loads((home / "runs" / r.session_id / "session.json").read_text())
        sw = (doc["turns"][0].get("run") or {}).get("wall_secs", 0.0)
        swarm.append(sw)
        collect_verify.append(max(0.0, r.wall_secs - sw))
        if done_ts.get(r.job_id):
            record.append(max(0.0, done_ts[r.job_id] - fin))
        by_host.setdefault(r.host, []).append((st, fin))
    for spans in by_host.values():
        spans.sort()
        gaps += [max(0.0, s2 - f1) for (_, f1), (s2, _) in zip(spans, spans[1:])]
    makespan = max(r.data["finished"] for r in recs) - t0
    lb = max(sum(d) / hosts, max(d))
    return {"jobs": len(recs), "makespan": makespan, "lb": lb, "sum_d": sum(d), "d": d, "swarm": swarm,
            "gaps": gaps, "collect_verify": collect_verify, "record": record,
            "per_host": {h: len(v) for h, v in sorted(by_host.items())}}


def sampler_cost(seconds: float = 20.0) -> dict:
    kids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"]) for _ in range(10)]
    try:
        t = time.perf_counter()
        per = []
        s = HostSampler(1.0)
        for _ in range(50):
            a = time.thread_time()
            s.sample()
            per.append(time.thread_time() - a)
        direct = (time.perf_counter() - t) / 50
        c0, w0 = time.process_time(), time.perf_counter()
        with HostSampler(1.0) as live:
            time.sleep(seconds)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    finally:
        for k in kids:
            k.kill()
            k.wait()
    return {"cpu_ms_per_sample": statistics.median(per) * 1000, "wall_ms_per_sample": direct * 1000,
            "cpu_percent_at_1hz": 100 * cpu / wall, "samples": len(live.samples), "procs": 10}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=30)
    ap.add_argument("--hosts", type=int, default=3)
    ap.add_argument("--skip-sequential", action="store_true", help="report sum(d) instead of running one host")
    a = ap.parse_args()
    server = LocalRedis()
    root = Path(tempfile.mkdtemp(prefix="swarmgym-fleet-bench-"))
    results = {}
    try:
        print("(c) sampler cost ...", flush=True)
        samp = sampler_cost()
        print(f"(a) {a.jobs} jobs over {a.hosts} hosts, swarmgym settings ...", flush=True)
        results["swarmgym (prefetch 1, late ack)"] = run_campaign(make_home(root, "fleet", server), a.hosts, a.jobs)
        print("(a) same jobs, Celery default prefetch ...", flush=True)
        results["celery defaults (prefetch 4, early ack)"] = run_campaign(
            make_home(root, "defaults", server), a.hosts, a.jobs, {"SWARMGYM_QUEUE_PREFETCH": "4", "SWARMGYM_QUEUE_ACKS_LATE": "false"})
        if not a.skip_sequential:
            print("(a) same jobs one after another (1 host) ...", flush=True)
            results["one after another (1 host)"] = run_campaign(make_home(root, "seq", server), 1, a.jobs)
    finally:
        server.close()
    base = results["swarmgym (prefetch 1, late ack)"]
    print()
    print(f"(a) makespan, {a.jobs} jobs with heterogeneous durations "
          f"(d: min {min(base['d']):.1f}s, median {statistics.median(base['d']):.1f}s, max {max(base['d']):.1f}s)")
    print(f"{'run':<42}{'hosts':>6}{'makespan s':>12}{'ideal LB s':>12}{'ratio':>8}  jobs per host")
    for name, res in results.items():
        hosts = len(res["per_host"])
        print(f"{name:<42}{hosts:>6}{res['makespan']:>12.1f}{res['lb']:>12.1f}{res['makespan'] / res['lb']:>8.2f}  "
              f"{res['per_host']}")
    if a.skip_sequential:
        print(f"{'one after another (sum of d, computed)':<42}{1:>6}{base['sum_d']:>12.1f}{base['sum_d']:>12.1f}{1.0:>8.2f}")
    print(f"  goal: swarmgym ratio <= 1.10; measured {base['makespan'] / base['lb']:.2f}")
    seq = results.get("one after another (1 host)")
    seq_time = seq["makespan"] if seq else base["sum_d"]
    print(f"  speedup over one after another: {seq_time / base['makespan']:.2f}x with {a.hosts} hosts "
          f"(this machine has {os.cpu_count()} cores: simulated hosts share them, so each job runs slower "
          f"in the fleet: sum(d) {base['sum_d']:.1f}s vs {seq['sum_d'] if seq else base['sum_d']:.1f}s alone)")
    print()
    print("(b) harness overhead per job (excluding the swarm's own time), swarmgym settings")
    print(f"{'part':<46}{'p50 s':>8}{'p95 s':>8}{'n':>5}")
    total = list(base["gaps"])
    for label, xs in (("dispatch gap (prev job end -> next job start)", base["gaps"]),
                      ("collect + verify (job wall - swarm wall)", base["collect_verify"]),
                      ("record (job end -> ledger written)", base["record"]),
                      ("swarm's own time (for scale)", base["swarm"])):
        print(f"{label:<46}{pct(xs, 0.5):>8.3f}{pct(xs, 0.95):>8.3f}{len(xs):>5}")
    per_job = [c + r_ for c, r_ in zip(base["collect_verify"], base["record"])]
    gap50 = pct(total, 0.5) if total else 0.0
    print(f"{'total overhead (gap p50 + collect/verify + record)':<46}{gap50 + pct(per_job, 0.5):>8.3f}"
          f"{(pct(total, 0.95) if total else 0.0) + pct(per_job, 0.95):>8.3f}")
    print()
    print("(c) psutil sampler at 1 Hz over a 10-process tree")
    print(f"  cpu per sample {samp['cpu_ms_per_sample']:.2f} ms; sampler thread CPU {samp['cpu_percent_at_1hz']:.3f} % "
          f"of one core ({samp['samples']} samples)")


if __name__ == "__main__":
    main()
