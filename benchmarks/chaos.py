"""Chaos benchmark: a `high` campaign over a real fleet under random faults, nobody at the keyboard.

    sudo python benchmarks/chaos.py [--faults 20] [--kinds K1,K2] [--hosts 3] [--dead-host-secs 10]
                                    [--reconcile-secs 60] [--seed 1] [--time-scale 1.0] [--json]

One throwaway ``redis-server`` (no persistence), a coordinator, ``--hosts`` simulated hosts (real Celery
worker processes running the simulator) and ``celery beat``, all started here.  A supervisor restarts
a process that died, after a delay, like systemd's ``Restart=always`` (that is not a person acting).

First a fault-free campaign gives makespan / ideal (ideal = max(sum(d)/hosts, max(d)), d = each job's
measured duration).  Then the same campaign again under ``--faults`` faults drawn at random from:

``kill_host``         SIGKILL a host's whole process tree mid-job (restarted after dead_host_secs + 5 s)
``restart_host``      SIGKILL a host's whole process tree mid-job and restart it at once under the same name
                      (systemd's ``Restart=always``: its heartbeat never stops, only its life changes)
``stop_host``         SIGSTOP a host mid-job for dead_host_secs + 5 s, then SIGCONT (a sleeping Mac)
``kill_coordinator``  SIGKILL the coordinator (restarted after 3 s)
``restart_redis``     restart Redis without persistence (every queue, lease, counter and plan copy gone)
``ledger_full``       fill the coordinator's ledger disk (a small tmpfs) for 20 s
``partition_30s``     cut a host mid-job from the broker for 30 s (its network namespace's veth pair drops
                      every packet both ways: no reset, no error), then join it again
``partition_3m``      the same for 3 minutes
``latency``           300 ms more each way on a host's path to the broker for 60 s (a delaying TCP proxy:
                      this kernel has no ``netem``)
``drop_conns``        reset every connection of a host to the broker, every 5 s for 30 s
``clock_ahead``       restart a host mid-job under its name with its wall clock 5 min ahead (for the rest of the run)
``clock_behind``      the same, 5 min behind

Run as root, every host runs in a network namespace of its own, joined to the broker's by a veth pair
(:mod:`swarmgym.testing.netlab`, made and removed here) and reaching Redis through a
:class:`~swarmgym.testing.faultproxy.FaultProxy` of its own; without root the network faults are skipped.
A clock fault's host keeps its skewed clock (:mod:`swarmgym.testing.clockskew`); "taken from live hosts" counts
the jobs the coordinator took from a host that never stopped beating (must be 0).

``--kinds`` draws the faults from some kinds only (e.g. ``--kinds restart_host,restart_redis``).
``--reconcile-secs`` is the shipped 60 s by default: recovery must not wait for the periodic reconcile.

Per fault kind it prints: faults, jobs hit (for a Redis restart: every job not recorded when it
happened), recorded, duplicated, lost, seconds from fault to recovery (max), seconds from fault until
every job it hit is recorded (max) and whether a person had to act.  Recovery: a job taken from a host
is running elsewhere or recorded; the coordinator has recorded again; every unrecorded job is queued or
running again; the ledger accepts writes again and the error is gone.  Needs root for the tmpfs (else
``ledger_full`` is skipped and says so).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import psutil
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from swarmgym.config import load_config  # noqa: E402
from swarmgym.models import LedgerRecord  # noqa: E402
from swarmgym.queue import deadhosts, dispatch, durable, keys, liveness, plans  # noqa: E402
from swarmgym.queue.app import make_app  # noqa: E402
from swarmgym.queue.redis_util import for_config  # noqa: E402
from swarmgym.testing import netlab  # noqa: E402
from swarmgym.testing.clockskew import skewed_env  # noqa: E402
from swarmgym.testing.faultproxy import FaultProxy  # noqa: E402
from swarmgym.testing.localfleet import LocalFleet  # noqa: E402
from swarmgym.testing.localredis import LocalRedis  # noqa: E402

KINDS = ["kill_host", "restart_host", "stop_host", "kill_coordinator", "restart_redis", "ledger_full",
         "partition_30s", "partition_3m", "latency", "drop_conns", "clock_ahead", "clock_behind"]
NET_KINDS = {"partition_30s": 30.0, "partition_3m": 180.0, "latency": 60.0, "drop_conns": 30.0}
CLOCK_KINDS = {"clock_ahead": 300.0, "clock_behind": -300.0}
HOST_KINDS = ("kill_host", "restart_host", "stop_host", *NET_KINDS, *CLOCK_KINDS)
FILL_SECS = 20.0


def tree(pid: int) -> list[psutil.Process]:
    try:
        p = psutil.Process(pid)
        return [p, *p.children(recursive=True)]
    except psutil.Error:
        return []


def signal_all(procs: list[psutil.Process], sig: int) -> None:
    for p in procs:
        try:
            p.send_signal(sig)
        except psutil.Error:
            pass


def jsonl_counts(home: Path, cid: str) -> Counter:
    path = home / "ledger" / "sessions.jsonl"
    out: Counter = Counter()
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            try:
                jid = json.loads(line)["job_id"]
            except (ValueError, KeyError):
                continue
            if jid.startswith(cid + "-"):
                out[jid] += 1
    return out


def recorded_at(home: Path, cid: str) -> dict[str, float]:
    """job_id -> when its (first) record was written, for the campaign's session records."""
    out: dict[str, float] = {}
    path = home / "ledger" / "sessions.jsonl"
    for line in path.read_text(errors="replace").splitlines() if path.exists() else []:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec.get("campaign_id") == cid and rec.get("kind") == "session":
            out.setdefault(rec["job_id"], float(rec.get("ts") or 0))
    return out


def finalized(home: Path, cid: str) -> bool:
    """Read the jsonl only: this process must never write the ledger (the coordinator alone does)."""
    path = home / "ledger" / "sessions.jsonl"
    try:
        return path.exists() and f'"job_id":"campaign:{cid}"' in path.read_text(errors="replace")
    except OSError:
        return False


class Stack:
    """Redis + coordinator + hosts + beat, with a supervisor that restarts what died."""

    def __init__(self, root: Path, name: str, hosts: int, dead_secs: float, tmpfs: bool, scale: float,
                 reconcile_secs: float = 60.0, netns: bool = False):
        self.redis = LocalRedis()
        self.home = root / name
        (self.home / "ledger").mkdir(parents=True)
        self.tmpfs = tmpfs and self._mount()
        (self.home / "config.yaml").write_text(yaml.safe_dump({"queue": {
            "broker_url": self.redis.url(0), "result_backend": self.redis.url(1), "visibility_timeout": 172800,
            "lease_ttl": max(3, int(dead_secs / 2)), "dead_host_secs": dead_secs, "reconcile_secs": reconcile_secs,
            "lost_grace": 60, "sample_hz": 1.0}}))
        self.cfg = load_config(self.home)
        self.app = make_app(self.cfg)
        self.fleet = LocalFleet(self.home, {"SWARMGYM_SIM_TIME_SCALE": str(scale)}, die_with_parent=True)
        self.hosts = [f"h{i}" for i in range(hosts)]
        self.down: dict[str, float] = {}  # process name -> when to restart it
        self.skew: dict[str, float] = {}  # host -> its clock's offset (clock faults)
        self.lab = netlab.NetLab() if netns else None
        self.proxies: dict[str, FaultProxy] = {}
        if self.lab is not None:
            for h in self.hosts:
                link = self.lab.add(h)
                self.proxies[h] = FaultProxy((link.broker_ip, 0), ("127.0.0.1", self.redis.port))

    def start_host(self, host: str) -> str:
        """Host ``host``'s worker: in its namespace, through its proxy, with its clock (as it was last set)."""
        env: dict[str, str] = {}
        if host in self.proxies:
            addr, port = self.proxies[host].address
            env.update(SWARMGYM_QUEUE_BROKER_URL=f"redis://{addr}:{port}/0",
                       SWARMGYM_QUEUE_RESULT_BACKEND=f"redis://{addr}:{port}/1")
        if host in self.skew:
            env.update(skewed_env(self.skew[host]))
        return self.fleet.worker("mlx", host, env=env, prefix=self.lab.wrap(host, []) if self.lab else None)

    def _mount(self) -> bool:
        p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(self.home / "ledger")],
                           capture_output=True, text=True)
        return p.returncode == 0

    def start(self) -> None:
        names = [self.fleet.coordinator()] + [self.start_host(h) for h in self.hosts]
        self.fleet.spawn("beat", [sys.executable, "-m", "celery", "-A", "swarmgym.queue.app", "beat", "--loglevel",
                                  "INFO", "-s", str(self.home / "celerybeat-schedule")])
        self.fleet.wait_ready(self.app, names, timeout=180)

    def supervise(self) -> None:
        now = time.time()
        for name, at in list(self.down.items()):
            if now >= at:
                del self.down[name]
                if name.startswith("coordinator@"):
                    self.fleet.coordinator()
                else:
                    self.start_host(name.split("@", 1)[1])

    def close(self) -> None:
        self.fleet.stop_all()
        for p in self.proxies.values():
            p.close()
        if self.lab is not None:
            self.lab.close()
        self.redis.close()
        if self.tmpfs:
            subprocess.run(["umount", "-l", str(self.home / "ledger")], capture_output=True)


def run_campaign(stack: Stack, cid: str, n_jobs: int, faults: list[str], rng: random.Random,
                 dead_secs: float, timeout: float = 1800) -> dict:
    cfg, home = stack.cfg, stack.home
    sent = dispatch.enqueue(stack.app, cfg, tier="high", variant="mlx", swarm="sim", campaign_id=cid)
    planned = [f"{cid}-{i:03d}" for i in range(sent.jobs)]
    t0 = time.time()
    events: list[dict] = []
    pending = list(faults)
    next_at = t0 + 8
    current: dict | None = None
    taken: dict[str, dict] = {}  # every job the coordinator took from a host (finalize deletes the record)
    seen: dict[str, float] = {}  # job -> when this benchmark first saw its record (a record's own ts is its host's clock)
    r = for_config(cfg)
    while not finalized(home, cid):
        stack.supervise()
        now = time.time()
        for j in jsonl_counts(home, cid):
            seen.setdefault(j, now)
        try:
            taken.update(deadhosts.lost_jobs_of(r, cid))
        except Exception:  # Redis restarting
            pass
        if now - t0 > timeout:
            break
        if current is not None:
            if check_recovered(stack, cid, current, planned, now):
                current["recovery_s"] = round(current["recovered_at"] - current["at"], 1)
                events.append(current)
                current, next_at = None, now + rng.uniform(3, 8)
            elif now - current["at"] > 180 + NET_KINDS.get(current["kind"], 0.0):
                current["recovery_s"] = None
                events.append(current)
                current, next_at = None, now + 3
        elif pending and now >= next_at:
            current = inject(stack, pending[0], cid, dead_secs)
            if current is not None:
                pending.pop(0)
            else:
                next_at = now + 1  # no job running right now: try again in a moment
        time.sleep(0.25)
    if current is not None:
        current["recovery_s"] = round(time.time() - current["at"], 1) if check_recovered(
            stack, cid, current, planned, time.time()) else None
        events.append(current)
    when = {**recorded_at(home, cid), **seen}
    for ev in events:  # from the fault until every job it hit is recorded
        hit = [when.get(j) for j in ev["jobs"]]
        ev["recorded_s"] = round(max(hit) - ev["at"], 1) if hit and all(hit) else None
    counts = jsonl_counts(home, cid)
    recs = [LedgerRecord.model_validate_json(line) for line in (home / "ledger" / "sessions.jsonl").read_text(
        errors="replace").splitlines() if f'"campaign_id":"{cid}"' in line and '"kind":"session"' in line]
    d = [r.data["finished"] - r.data["started"] for r in recs if r.data.get("started")]
    makespan = (max(r.data["finished"] for r in recs) - t0) if recs else float("nan")
    hosts = len(stack.hosts)
    ideal = max(sum(d) / hosts, max(d)) if d else float("nan")
    hit_hosts = {j for e in events if e["kind"] in HOST_KINDS for j in e["jobs"]}
    return {"taken_from_live": sorted(j for j in taken if j not in hit_hosts), "campaign_id": cid,
            "planned": len(planned), "recorded": sum(1 for j in planned if counts[j] >= 1),
            "duplicated": sum(c - 1 for c in counts.values() if c > 1),
            "lost": sum(1 for j in planned if counts[j] == 0), "makespan": makespan, "ideal": ideal,
            "finalized": finalized(home, cid), "events": events,
            "not_injected": pending, "counts": counts}


def inject(stack: Stack, kind: str, cid: str, dead_secs: float) -> dict | None:
    r = for_config(stack.cfg)
    ev: dict = {"kind": kind, "at": time.time(), "jobs": [], "manual": False}
    if kind in NET_KINDS and stack.lab is None:
        ev.update(skipped="needs root (network namespaces)", recovered_at=ev["at"])
        return ev
    if kind in HOST_KINDS:
        try:
            running = [(j, e) for j, e in liveness.running(r).items() if e.get("host") in stack.hosts
                       and f"mlx@{e['host']}" not in stack.down]
        except Exception:
            return None
        if not running:
            return None
        jid, entry = random.choice(running)
        host = entry["host"]
        name = f"mlx@{host}"
        procs = tree(stack.fleet.procs[name].popen.pid)
        ev.update(host=host, jobs=[jid])
        if kind in ("kill_host", "restart_host", *CLOCK_KINDS):
            signal_all(procs, signal.SIGKILL)
            stack.fleet.procs[name].popen.wait(timeout=10)
            if kind in CLOCK_KINDS:
                stack.skew[host] = CLOCK_KINDS[kind]
            if kind != "kill_host":  # back at once under the same name (with its clock off, for a clock fault)
                stack.start_host(host)
            else:
                stack.down[name] = time.time() + dead_secs + 5
        elif kind in NET_KINDS:
            ev["until"] = time.time() + NET_KINDS[kind]
            if kind.startswith("partition"):
                assert stack.lab is not None
                stack.lab.partition(host)
            elif kind == "latency":
                stack.proxies[host].latency = 0.3
            else:
                ev["drops"] = stack.proxies[host].drop_all()
                ev["next_drop"] = time.time() + 5
        else:
            signal_all(procs, signal.SIGSTOP)
            ev["wake"] = (procs, time.time() + dead_secs + 5)
    elif kind == "kill_coordinator":
        name = next(n for n in stack.fleet.procs if n.startswith("coordinator@"))
        ev["records_before"] = sum(jsonl_counts(stack.home, cid).values())
        signal_all(tree(stack.fleet.procs[name].popen.pid), signal.SIGKILL)
        stack.fleet.procs[name].popen.wait(timeout=10)
        stack.down[name] = time.time() + 3
    elif kind == "restart_redis":
        done = jsonl_counts(stack.home, cid)  # every job not recorded yet is hit
        ev["jobs"] = [j.job_id for j in plans.find(stack.cfg, cid, r).jobs if not done[j.job_id]]
        stack.redis.restart()
    elif kind == "ledger_full":
        if not stack.tmpfs:
            ev["skipped"] = "no tmpfs (needs root): ledger_full not injected"
            ev["recovered_at"] = ev["at"]
            return ev
        filler = stack.home / "ledger" / "filler.bin"
        with open(filler, "wb") as f:
            try:
                while True:
                    f.write(b"\0" * (1 << 20))
                    f.flush()
            except OSError:
                pass
        ev["unfill_at"] = time.time() + FILL_SECS
        ev["filler"] = filler
    return ev


def check_recovered(stack: Stack, cid: str, ev: dict, planned: list[str], now: float) -> bool:
    """Has the fleet recovered from ``ev``?  Sets ``ev['recovered_at']`` when it has."""
    r = for_config(stack.cfg)
    if "wake" in ev and now >= ev["wake"][1]:
        signal_all(ev["wake"][0], signal.SIGCONT)
        del ev["wake"]
    if "unfill_at" in ev and now >= ev["unfill_at"]:
        ev["filler"].unlink(missing_ok=True)
        del ev["unfill_at"]
    if "until" in ev:
        host = ev["host"]
        if ev["kind"] == "drop_conns" and now >= ev["next_drop"] and now < ev["until"]:
            ev["drops"] += stack.proxies[host].drop_all()
            ev["next_drop"] = now + 5
        if now >= ev["until"]:  # the fault is over: the link as it was
            if ev["kind"].startswith("partition"):
                assert stack.lab is not None
                stack.lab.heal(host)
            stack.proxies[host].latency = 0.0
            del ev["until"]
    if "recovered_at" in ev:
        return "wake" not in ev and "until" not in ev
    counts = jsonl_counts(stack.home, cid)
    ok = False
    try:
        if ev["kind"] in HOST_KINDS:  # the job is back in the queue (or recorded)
            (jid,) = ev["jobs"]
            holder = r.get(keys.lease(jid)) or ""
            ok = (counts[jid] >= 1 or jid in deadhosts.lost_jobs_of(r, cid)
                  or (bool(holder) and not holder.startswith(ev["host"] + "|")))
        elif ev["kind"] == "kill_coordinator":
            done = all(counts[j] >= 1 for j in planned)
            ok = "coordinator@coord" not in stack.down and (
                sum(counts.values()) > ev["records_before"] or done)
        elif ev["kind"] == "restart_redis":
            busy = dispatch.queued_job_ids(r) | set(liveness.running(r))
            busy |= {j for j in planned if r.exists(keys.lease(j))}
            ok = all(counts[j] >= 1 or j in busy for j in planned)
        elif ev["kind"] == "ledger_full":
            ok = "unfill_at" not in ev and durable.state(r) is None
    except Exception:  # Redis restarting
        ok = False
    if ok:
        ev["recovered_at"] = now
    return ok and "wake" not in ev and "until" not in ev


def report(base: dict, chaos: dict, dead_secs: float, n_faults: int) -> list[dict]:
    rows = []
    for kind in KINDS:
        evs = [e for e in chaos["events"] if e["kind"] == kind]
        if not evs:
            continue
        hit = sorted({j for e in evs for j in e["jobs"]})
        rec = [e.get("recovery_s") for e in evs if not e.get("skipped")]
        done = [e.get("recorded_s") for e in evs if e["jobs"]]
        rows.append({"fault": kind, "faults": len(evs), "skipped": sum(1 for e in evs if e.get("skipped")),
                     "jobs_hit": len(hit), "recorded": sum(1 for j in hit if chaos["counts"][j] >= 1),
                     "duplicated": sum(chaos["counts"][j] - 1 for j in hit if chaos["counts"][j] > 1),
                     "lost": sum(1 for j in hit if chaos["counts"][j] == 0),
                     "recovery_max_s": max((x for x in rec if x is not None), default=None),
                     "recorded_max_s": max((x for x in done if x is not None), default=None),
                     "unrecovered": sum(1 for x in rec if x is None), "manual": any(e["manual"] for e in evs)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--faults", type=int, default=20, help="faults in the chaos campaign")
    ap.add_argument("--hosts", type=int, default=3)
    ap.add_argument("--dead-host-secs", type=float, default=10.0)
    ap.add_argument("--reconcile-secs", type=float, default=60.0, help="queue.reconcile_secs (the shipped default)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="fault kinds to draw from, comma-separated")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-baseline", action="store_true", help="no fault-free campaign (no makespan/ideal)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--time-scale", type=float, default=1.0,
                    help="SWARMGYM_SIM_TIME_SCALE of every job (1.0: ~30 s jobs, so 20 faults fit in one campaign)")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the cleanup (mounts, servers) on kill
    rng = random.Random(a.seed)
    random.seed(a.seed)
    kinds = [k.strip() for k in a.kinds.split(",") if k.strip()]
    if not kinds or set(kinds) - set(KINDS):
        ap.error(f"--kinds: expected some of {', '.join(KINDS)}, got {a.kinds!r}")
    faults = [kinds[i % len(kinds)] for i in range(a.faults)]
    rng.shuffle(faults)
    root = Path(tempfile.mkdtemp(prefix="swarmgym-chaos-"))
    base = None
    if not a.skip_baseline:
        print(f"fault-free `high` campaign over {a.hosts} hosts ...", file=sys.stderr, flush=True)
        stack = Stack(root, "calm", a.hosts, a.dead_host_secs, tmpfs=False, scale=a.time_scale,
                      reconcile_secs=a.reconcile_secs, netns=netlab.available())
        try:
            stack.start()
            base = run_campaign(stack, "calm", 30, [], rng, a.dead_host_secs)
        finally:
            stack.close()
    print(f"`high` campaign under {a.faults} faults: {', '.join(faults)} ...", file=sys.stderr, flush=True)
    stack = Stack(root, "chaos", a.hosts, a.dead_host_secs, tmpfs=os.geteuid() == 0, scale=a.time_scale,
                  reconcile_secs=a.reconcile_secs, netns=netlab.available())
    try:
        stack.start()
        chaos = run_campaign(stack, "chaos", 30, faults, rng, a.dead_host_secs)
    finally:
        stack.close()
    rows = report(base or {}, chaos, a.dead_host_secs, a.faults)
    out = {"dead_host_secs": a.dead_host_secs, "goal_recovery_s": a.dead_host_secs + 30, "faults": rows,
           "chaos": {k: chaos[k] for k in ("planned", "recorded", "duplicated", "lost", "finalized", "makespan",
                                            "ideal", "not_injected", "taken_from_live")},
           "baseline": ({k: base[k] for k in ("planned", "recorded", "duplicated", "lost", "makespan", "ideal")}
                        if base else None)}
    if a.json:
        print(json.dumps(out, indent=1, default=str))
        return
    print(f"\nchaos: {chaos['planned']} jobs planned, {chaos['recorded']} recorded, {chaos['duplicated']} duplicated, "
          f"{chaos['lost']} lost, finalized={chaos['finalized']}, makespan {chaos['makespan']:.1f}s; "
          f"{len(chaos['events'])} fault(s) injected" + (f", not injected: {chaos['not_injected']}"
                                                         if chaos["not_injected"] else "")
          + f"; jobs taken from live hosts: {len(chaos['taken_from_live'])}")
    print(f"{'fault':<15}{'n':>3}{'jobs hit':>9}{'recorded':>9}{'dup':>5}{'lost':>5}{'recovery s (max)':>18}"
          f"{'recorded s (max)':>18}{'manual':>8}")
    for x in rows:
        rec = "-" if x["recovery_max_s"] is None else f"{x['recovery_max_s']:.1f}"
        if x["unrecovered"]:
            rec += f" ({x['unrecovered']} not)"
        if x["skipped"]:
            rec = f"skipped ({x['skipped']})"
        done = "-" if x["recorded_max_s"] is None else f"{x['recorded_max_s']:.1f}"
        print(f"{x['fault']:<15}{x['faults']:>3}{x['jobs_hit']:>9}{x['recorded']:>9}{x['duplicated']:>5}{x['lost']:>5}"
              f"{rec:>18}{done:>18}{'yes' if x['manual'] else 'no':>8}")
    print(f"goal: 0 lost, 0 duplicated, 0 manual, recovery <= dead_host_secs + 30 = {a.dead_host_secs + 30:.0f}s")
    if base:
        print(f"\nfault-free makespan {base['makespan']:.1f}s, ideal {base['ideal']:.1f}s, ratio "
              f"{base['makespan'] / base['ideal']:.3f} (goal <= 1.02); under faults: makespan {chaos['makespan']:.1f}s, "
              f"ideal {chaos['ideal']:.1f}s, ratio {chaos['makespan'] / chaos['ideal']:.3f}")


if __name__ == "__main__":
    main()
