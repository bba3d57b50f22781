"""The psutil sampler and the orphan guard, against real processes."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil

from swarmgym.workers.sampler import HostSampler, summarize


def test_sampler_sees_host_load_and_the_swarm_process_tree():
    # the child spins until it has used 0.6 s of CPU (however loaded the machine), at most 20 s of wall time
    child = subprocess.Popen([sys.executable, "-c", "import time\nt=time.time()\n"
                              "while time.process_time()<0.6 and time.time()-t<20: pass"], start_new_session=True)
    try:
        with HostSampler(hz=10, root_pid=os.getpid()) as s:
            deadline = time.monotonic() + 25
            while child.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
    finally:
        child.kill()
        child.wait()
    assert len(s.samples) >= 5
    busy = [x for x in s.samples if x.swarm_procs >= 1]
    assert busy and max(x.swarm_cpu_percent for x in busy) > 5  # the spinning child shows up
    assert all(0 <= x.cpu_percent <= 100 and x.mem_percent > 0 for x in s.samples)
    summary = summarize(s.samples)
    assert summary["samples"] == len(s.samples) and summary["swarm_procs_max"] >= 1


def test_a_short_run_at_one_hertz_still_gets_samples_spanning_it_in_one_schema():
    t0 = time.time()
    with HostSampler(hz=1.0, root_pid=os.getpid()) as s:
        time.sleep(0.9)
    t1 = time.time()
    assert len(s.samples) >= 3  # 0.1 s in, gaps doubling, and one as the run ends
    assert s.samples[0].ts - t0 < 0.6 and t1 - s.samples[-1].ts < 0.5
    load = summarize(s.samples)
    assert load["span_secs"] >= 0.4 and load["samples"] == len(s.samples)
    assert set(load) == set(summarize(s.samples[:1]))  # the same keys however many samples


def test_sampler_excludes_given_pids_and_always_returns_one_sample():
    import psutil

    earlier = {p.pid for p in psutil.Process().children(recursive=True)}  # session fixtures (redis-server, …)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(2)"])
    try:
        with HostSampler(hz=0.1, root_pid=os.getpid(), exclude={child.pid, *earlier}) as s:
            pass
    finally:
        child.kill()
        child.wait()
    assert len(s.samples) == 1 and s.samples[0].swarm_procs == 0


def test_guard_kills_the_process_group_of_an_orphaned_swarm_when_its_worker_dies():
    # worker: starts a "swarm" in its own session, then the guard watching itself, then hangs
    code = (
        "import subprocess,sys,time\n"
        "sw=subprocess.Popen([sys.executable,'-c','import time; time.sleep(60)'],start_new_session=True)\n"
        "print(sw.pid,flush=True)\n"
        "import os\n"
        "subprocess.Popen([sys.executable,'-m','swarmgym.isolation.guard',str(os.getpid()),'0.05'],start_new_session=True)\n"
        "time.sleep(60)\n")
    worker = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    swarm_pid = int(worker.stdout.readline())
    time.sleep(0.8)  # the guard has seen the swarm
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    deadline = time.time() + 5
    while time.time() < deadline:
        if not psutil.pid_exists(swarm_pid) or psutil.Process(swarm_pid).status() == psutil.STATUS_ZOMBIE:
            break
        time.sleep(0.1)
    alive = psutil.pid_exists(swarm_pid) and psutil.Process(swarm_pid).status() != psutil.STATUS_ZOMBIE
    if alive:
        os.kill(swarm_pid, signal.SIGKILL)
    assert not alive, "the swarm outlived its worker"
