"""Scale benchmark (issue #16): one campaign of 500 / 2,000 / 10,000 tiny jobs over 20+ real hosts.

    python benchmarks/scale.py [--sizes 500,2000,10000] [--hosts 20] [--kill-host] [--json]

Real parts only: a throwaway ``redis-server`` on a free port, a real coordinator, ``--hosts`` real
host workers (``swarmgym worker --variant scale --host hN``, each on its own ``host.hN`` queue plus
the shared ``variant.scale``; Celery's solo pool so a host is one light process), real jobs: the
``command`` adapter runs a one-line script that writes ``out.txt`` and a one-check suite (written
here into a temp suites dir) checks it, so a job costs tens of milliseconds instead of the golden
checks' seconds.  Nothing in swarmgym knows this is a benchmark: it is configuration.

Per size, one campaign:
  1. enqueue (plan + messages, through ``dispatch.send_jobs``), timed;
  2. the coordinator is paused (SIGSTOP) while the hosts run every job, so every result waits in
     Redis at once: the worst case "in flight" (peak used_memory sampled every 0.2 s);
  3. ``status`` (the CLI, a fresh process) and one ``--watch`` tick (``progress.tick``) mid-campaign;
  4. SIGCONT: the coordinator drains the backlog: its record rate (jobs/min) and record_job p50
     (from its log) measure the sole ledger writer at full load;
  5. after finalize: Redis bytes per job left, keys left, finalize time (from the campaign summary),
     lost and duplicated jobs (from the jsonl).
``--kill-host`` SIGKILLs one host while the jobs run (its job comes back after the visibility
timeout; 0 lost, 0 duplicated is the goal).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from swarmgym.campaigns.plan import Campaign, save_campaign
from swarmgym.config import load_config
from swarmgym.ledger import Ledger, campaign_job_id
from swarmgym.models import JobSpec
from swarmgym.queue import dispatch, keys, store
from swarmgym.queue.app import make_app
from swarmgym.queue.redis_util import for_config
from swarmgym.suitekit.suite import load_suite
from swarmgym.testing.localfleet import LocalFleet
from swarmgym.testing.localredis import LocalRedis

VARIANT = "scale"
SUITE = {"name": "scale-v1", "description": "one file, one check (benchmarks/scale.py)", "specs": [{
    "id": "touch", "app_slug": "touchapp", "language": "shell", "archetype": "file",
    "prompt": "write out.txt", "hard_prompt": "write out.txt",
    "checks": [{"name": "out_exists", "kind": "file_exists", "path": "out.txt"}]}]}
SUCCEEDED = re.compile(r"Task swarmgym\.record_job\[[^\]]+\] succeeded in ([0-9.]+)s")


def make_home(root: Path, redis: LocalRedis) -> Path:
    suites = root / "suites" / SUITE["name"]
    suites.mkdir(parents=True)
    (suites / "suite.yaml").write_text(yaml.safe_dump(SUITE))
    home = root / "home"
    home.mkdir()
    (home / "config.yaml").write_text(yaml.safe_dump({
        "suites_dir": str(root / "suites"), "suite": SUITE["name"],
        "swarm": {"adapter": "command", "command": ["sh", "-c", "echo ok > out.txt", "{prompt}"], "timeout": 60},
        "queue": {"broker_url": redis.url(0), "result_backend": redis.url(1), "visibility_timeout": 45,
                  "lease_ttl": 10, "sample_hz": 0.5, "lost_grace": 3600, "reconcile_secs": 3600}}))
    return home


def plan(cfg, cid: str, n: int) -> Campaign:
    s = load_suite(cfg.suite, cfg.suites_dir)
    spec = s.specs[0]
    jobs = [JobSpec(job_id=f"{cid}-{i:05d}", campaign_id=cid, suite=s.name, suite_hash=s.hash, spec=spec.id,
                    app_slug=spec.app_slug, variant=VARIANT, tier="high", rep=i, seq=i, swarm="command")
            for i in range(n)]
    return Campaign(campaign_id=cid, mode="queue", tier="high", variant=VARIANT, suite=s.name, suite_hash=s.hash,
                    swarm="command", jobs=jobs)


class MemSampler(threading.Thread):
    def __init__(self, r, every: float = 0.2):
        super().__init__(daemon=True)
        self.r, self.every, self.peak = r, every, 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(self.every):
            try:
                self.peak = max(self.peak, int(self.r.info("memory")["used_memory"]))
            except Exception:
                pass


def cli_status(home: Path, cid: str) -> tuple[float, float]:
    """(wall, CPU) seconds of ``swarmgym status <cid>`` in a fresh process (CPU: what it costs whatever
    else the machine is doing)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "status", cid], capture_output=True,
                   timeout=300, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def watch_tick(cfg, r, cid: str) -> tuple[float, float]:
    """One ``--watch`` tick: the counters alone (``status`` adds the coordinator's answer once, at the end)."""
    from swarmgym.queue.progress import tick

    tick(r, cid)  # imports and connections warm, as in a running --watch
    t, c = time.perf_counter(), time.process_time()
    tick(r, cid)
    return time.perf_counter() - t, time.process_time() - c


def proc_cpu(pid: int) -> float:
    """user + system CPU seconds of a process and its reaped children (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def record_times(log: Path, start: int) -> list[float]:
    with open(log, "rb") as f:
        f.seek(start)
        text = f.read().decode("utf-8", "replace")
    return [float(x) for x in SUCCEEDED.findall(text)]


def enqueue_only(home: Path, n: int) -> dict:
    """Enqueue alone (no host consuming beside it): what a fleet whose hosts are other machines sees."""
    cfg = load_config(home)
    app, r = make_app(cfg), for_config(cfg)
    cid = f"enq-{n}-{int(time.time())}"
    camp = plan(cfg, cid, n)
    mem0 = int(r.info("memory")["used_memory"])
    t0, c0 = time.perf_counter(), time.process_time()
    save_campaign(cfg, camp)
    store.ensure_redis(r, camp)
    dispatch.send_jobs(app, cfg, cid, camp.jobs, fresh=True)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"jobs": n, "enqueue_ms_per_job": round(1000 * wall / n, 3), "enqueue_cpu_ms_per_job": round(1000 * cpu / n, 3),
            "redis_bytes_per_queued_job": round((int(r.info("memory")["used_memory"]) - mem0) / n)}


def run_size(home: Path, fleet: LocalFleet, coord: str, hosts: list[str], n: int, kill_host: bool) -> dict:
    cfg = load_config(home)
    app = make_app(cfg)
    r = for_config(cfg)
    cid = f"scale-{n}-{int(time.time())}"
    camp = plan(cfg, cid, n)
    base_mem = int(r.info("memory")["used_memory"])
    base_keys = r.dbsize()
    sampler = MemSampler(r)
    sampler.start()
    coord_pid = fleet.procs[coord].popen.pid
    os.kill(coord_pid, signal.SIGSTOP)  # results pile up in Redis: the worst case in flight
    t0, c0 = time.perf_counter(), time.process_time()
    save_campaign(cfg, camp)
    store.ensure_redis(r, camp)
    dispatch.send_jobs(app, cfg, cid, camp.jobs, fresh=True)
    enqueue_s, enqueue_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"  {n} jobs enqueued in {enqueue_s:.2f}s", flush=True)
    killed = None
    status = tick = None
    t_run = time.time()
    while True:
        pending = r.llen(f"variant.{VARIANT}") + sum(r.llen(f"host.{h.split('@')[1]}") for h in hosts)
        busy = r.hlen("unacked")  # delivered, not yet acked: run_job in progress (coordinator is paused)
        done_hosts = n - pending
        if status is None and done_hosts >= n // 2:
            status, tick = cli_status(home, cid), watch_tick(cfg, r, cid)
        if kill_host and killed is None and done_hosts >= n // 3:
            killed = hosts[0]
            fleet.kill(killed)
            print(f"  killed {killed} at {done_hosts}/{n}", flush=True)
        if pending == 0 and busy == 0:
            break
        if time.time() - t_run > 7200:
            raise TimeoutError(f"{cid}: hosts did not finish")
        time.sleep(0.5)
    host_s = time.time() - t_run
    if status is None:
        status, tick = cli_status(home, cid), watch_tick(cfg, r, cid)
    in_flight = r.llen("coordinator")
    print(f"  hosts done in {host_s:.0f}s; {in_flight} coordinator messages waiting", flush=True)
    log = fleet.procs[coord].log
    log_start = log.stat().st_size
    cpu0 = proc_cpu(coord_pid)
    t1 = time.time()
    os.kill(coord_pid, signal.SIGCONT)
    led = Ledger(cfg.ledger_dir)
    while r.hget(keys.campaign(cid), "status") != "finalized":
        if time.time() - t1 > 3600:
            raise TimeoutError(f"{cid}: not finalized")
        time.sleep(0.2)
    drain_s = time.time() - t1
    coord_cpu = proc_cpu(coord_pid) - cpu0
    while r.llen("coordinator") or r.hlen("unacked"):  # artefacts and reports still being consumed
        time.sleep(0.2)
    sampler.stop.set()
    sampler.join()
    time.sleep(0.5)
    after_mem = int(r.info("memory")["used_memory"])
    summary = r.hgetall(keys.campaign(cid))
    ids = Counter(json.loads(line)["job_id"] for line in (cfg.ledger_dir / "sessions.jsonl").read_text().splitlines()
                  if cid in line)
    planned = {j.job_id for j in camp.jobs}
    rec_ms = record_times(log, log_start)
    return {
        "jobs": n, "hosts": len(hosts), "killed_host": killed,
        "enqueue_s": round(enqueue_s, 3), "enqueue_ms_per_job": round(1000 * enqueue_s / n, 3),
        "enqueue_cpu_ms_per_job": round(1000 * enqueue_cpu / n, 3),
        "redis_peak_bytes_per_job": round((sampler.peak - base_mem) / n),
        "redis_after_bytes_per_job": round(max(0, after_mem - base_mem) / n, 1),
        "keys_after": r.dbsize(), "keys_before": base_keys,
        "campaign_keys_after": len(r.keys(f"*{cid}*")),
        "finalize_s": float(summary.get("finalize_secs") or "nan"),
        "status_s": round(status[0], 3), "status_cpu_s": round(status[1], 3),
        "watch_tick_s": round(tick[0], 4), "watch_tick_cpu_s": round(tick[1], 4),
        "record_ms_p50": round(1000 * statistics.median(rec_ms), 2) if rec_ms else None,
        "jobs_per_min": round(60 * n / drain_s), "drain_s": round(drain_s, 1), "hosts_s": round(host_s, 1),
        "coord_cpu_ms_per_job": round(1000 * coord_cpu / n, 2),
        "jobs_per_min_per_coord_core": round(60 * n / coord_cpu) if coord_cpu else None,
        "load1": round(os.getloadavg()[0], 1),
        "lost": len(planned - set(ids)), "duplicated": sum(v - 1 for k, v in ids.items() if k in planned and v > 1),
        "finalized": led.has_job(campaign_job_id(cid)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="500,2000,10000")
    ap.add_argument("--hosts", type=int, default=20)
    ap.add_argument("--kill-host", action="store_true", help="SIGKILL one host a third of the way through")
    ap.add_argument("--json", action="store_true", help="one JSON object per size")
    ap.add_argument("--enqueue-only", action="store_true", help="only enqueue each size, with no host running")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",") if x.strip()]
    if a.enqueue_only:
        with LocalRedis() as redis:
            home = make_home(Path(tempfile.mkdtemp(prefix="swarmgym-scale-")), redis)
            enqueue_only(home, 50)  # warm: imports, connections, queue declarations
            for n in sizes:
                print(json.dumps(enqueue_only(home, n)), flush=True)
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the fleet and Redis on the way out
    root = Path(tempfile.mkdtemp(prefix="swarmgym-scale-"))
    results = []
    with LocalRedis() as redis:
        home = make_home(root, redis)
        fleet = LocalFleet(home, {"SWARMGYM_WORKER_POOL": "solo"}, die_with_parent=True)
        try:
            coord = fleet.coordinator()
            hosts = [fleet.worker(VARIANT, f"h{i}") for i in range(a.hosts)]
            print(f"starting a coordinator and {a.hosts} hosts ...", flush=True)
            fleet.wait_ready(make_app(load_config(home)), [coord, *hosts], timeout=600)
            for n in sizes:
                print(f"campaign of {n} jobs over {a.hosts} hosts", flush=True)
                res = run_size(home, fleet, coord, hosts, n, a.kill_host)
                results.append(res)
                if a.json:
                    print(json.dumps(res), flush=True)
                if res["killed_host"]:  # bring the host back for the next size
                    h = res["killed_host"].split("@")[1]
                    fleet.procs.pop(res["killed_host"], None)
                    fleet.wait_ready(make_app(load_config(home)), [fleet.worker(VARIANT, h)], timeout=300)
        finally:
            for p in fleet.procs.values():
                if p.popen.poll() is None:
                    os.kill(p.popen.pid, signal.SIGCONT)  # a paused coordinator must hear its SIGTERM
            fleet.stop_all()
    if a.json:
        return
    cols = ["jobs", "hosts", "enqueue_ms_per_job", "enqueue_cpu_ms_per_job", "redis_peak_bytes_per_job",
            "redis_after_bytes_per_job", "keys_after", "finalize_s", "status_s", "status_cpu_s", "watch_tick_s",
            "watch_tick_cpu_s", "record_ms_p50", "jobs_per_min", "coord_cpu_ms_per_job",
            "jobs_per_min_per_coord_core", "lost", "duplicated", "load1"]
    print()
    print(" | ".join(cols))
    for res in results:
        print(" | ".join(str(res[c]) for c in cols))
    if len(results) > 1:
        a0, z = results[0], results[-1]
        print(f"\nratios {z['jobs']} vs {a0['jobs']} jobs: status {z['status_s'] / a0['status_s']:.2f}x "
              f"(CPU {z['status_cpu_s'] / a0['status_cpu_s']:.2f}x), watch tick {z['watch_tick_s'] / a0['watch_tick_s']:.2f}x "
              f"(CPU {z['watch_tick_cpu_s'] / max(1e-9, a0['watch_tick_cpu_s']):.2f}x), "
              f"Redis/job in flight {z['redis_peak_bytes_per_job'] / max(1, a0['redis_peak_bytes_per_job']):.2f}x")


if __name__ == "__main__":
    main()
