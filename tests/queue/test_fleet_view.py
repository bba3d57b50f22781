"""``status --watch`` is a live view of the fleet, ``workers`` remembers a stopped host (issue #33):
each host online or offline since when, its current job (whole id) and how long it has run, its last
heartbeat; the coordinator online or not; the campaign's progress and failures so far — real Redis, real
worker processes, the CLI as a user runs it."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

import pytest

from swarmgym.campaigns.plan import load_campaign
from swarmgym.config import load_config
from swarmgym.ledger import Ledger
from swarmgym.queue import liveness
from swarmgym.queue.redis_util import for_config
from tests.support.queue import app_for, cli, tiny_jobs_home, wait_until

pytestmark = pytest.mark.redis



class Watch:
    """``swarmgym status ... --watch --json`` running, its JSON lines collected as they come."""

    def __init__(self, home, *args: str) -> None:
        # Ctrl-C as at a terminal: a pytest started in the background (`pytest … &`) ignores SIGINT, and its
        # children inherit that, so Python would never raise KeyboardInterrupt in the watch
        self.p = subprocess.Popen([sys.executable, "-m", "swarmgym", "--home", str(home), "status", *args, "--watch",
                                   "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.views: list[dict] = []
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            self.views.append(json.loads(line))

    def seen(self, pred, timeout: float, what: str) -> dict:
        return wait_until(lambda: next((v for v in reversed(self.views) if pred(v)), None), timeout, 0.2, what)

    def close(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait(timeout=10)


def host(view: dict, name: str) -> dict | None:
    return next((h for h in view["hosts"] if h["host"] == name), None)


@pytest.mark.slow  # real Celery workers
def test_watch_shows_hosts_their_jobs_the_coordinator_and_failures_until_the_campaign_is_done(home, fleet_factory):
    tiny_jobs_home(home, command="sleep 2; echo ok > out.txt", specs=3)  # light: 3 jobs of ~2 s
    fleet = fleet_factory()
    app = app_for(home)
    fleet.wait_ready(app, [fleet.coordinator()])  # no host yet: the jobs wait in their queue
    cid = cli(home, "enqueue", "--tier", "light", "--variant", "mlx").stdout.split()[0]
    planned = {j.job_id for j in load_campaign(load_config(home), cid).jobs}  # the coordinator's plan
    assert len(planned) == 3

    w = Watch(home, cid)  # watching from before any job runs
    try:
        fleet.wait_ready(app, [fleet.worker("mlx", "h-a"), fleet.worker("mlx", "h-b")])
        busy = w.seen(lambda v: any(h["state"] == "online" and h["jobs"] and (h["jobs"][0]["running_secs"] or 0) > 0
                                    for h in v["hosts"]), 120, "a host online with its running job")
        assert busy["coordinator"]["online"] is True
        running = [j for h in busy["hosts"] for j in h["jobs"]]
        assert {j["job_id"] for j in running} <= planned and all(j["campaign_id"] == cid for j in running)
        for h in busy["hosts"]:
            assert h["state"] == "online" and h["since"] and h["last_beat"] and h["silent"] < 30

        fleet.stop("mlx@h-b")  # a clean stop: offline, since when
        gone = w.seen(lambda v: (host(v, "h-b") or {}).get("state") == "offline"
                      and not (host(v, "h-b") or {}).get("jobs"), 120, "h-b offline, its job put back")
        hb = host(gone, "h-b")
        assert hb is not None and hb["why"] == "stopped" and hb["since"] <= gone["at"]
        assert host(gone, "h-a")["state"] == "online"  # type: ignore[index]

        w.p.wait(timeout=300)  # the watch ends by itself when the campaign is done
        assert w.p.returncode == 0, w.p.stderr.read() if w.p.stderr else ""
        w.t.join(timeout=10)
        [last] = w.views[-1]["campaigns"]
        assert last["status"] == "finalized" and last["recorded"] == last["planned"] == len(planned)
        done = Ledger(home / "ledger").records(kind="session", campaign_id=cid)  # the truth the watch counts
        failing = {x.job_id for x in done if x.overall in ("fail", "error", "infra")}
        assert failing and last["failed"] == len(failing)
        assert {f["job_id"] for f in last["failures"]} == failing  # whole ids, never cut
        progress = [v["campaigns"][0]["recorded"] for v in w.views]
        assert progress == sorted(progress) and progress[0] < len(planned)  # it was watched live, counting up
    finally:
        w.close()

    # the table people read, in an 80-column terminal, and `workers` (JSON and table), run side by side: each
    # `workers` waits out its replies' timeout three times over
    def run(*args: str, columns: int = 80) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "swarmgym", "--home", str(home), *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": str(columns)})
    procs = [run("status", cid, "--watch"), run("workers", "--json"), run("workers", columns=200)]
    (out, err), (rows_json, _), (table, _) = (p.communicate(timeout=120) for p in procs)
    assert procs[0].returncode == 0, err
    n = len(planned)
    assert "coordinator: online" in out and f"{n}/{n} recorded" in out
    assert f"{len(failing)} failed" in out
    for f in last["failures"]:
        assert f["job_id"] in out, out

    # workers: the stopped host is still listed, with when it was last seen
    rows = {x["host"]: x for x in json.loads(rows_json)}
    assert rows["h-b"]["state"] == "offline" and rows["h-b"]["last_seen"] and rows["h-b"]["last_seen_ago"] >= 0
    assert rows["h-a"]["state"] == "online" and rows["h-a"]["last_seen_ago"] < 30
    [line] = [x for x in table.splitlines() if "h-b" in x and "offline" in x]
    assert " ago)" in line and "UTC" in line


def test_watch_says_no_coordinator_is_online_and_shows_each_host_as_it_is(home, rdb):
    r = for_config(load_config(home))
    liveness.register_host(r, "studio", {"node": "mlx@studio", "variant": "mlx", "life": "l1"})
    liveness.register_host(r, "mini", {"node": "mlx@mini", "variant": "mlx", "life": "l2"})
    assert liveness.withdraw(r, "mini", "l2")  # mini stopped cleanly
    w = Watch(home)
    try:
        v = w.seen(lambda v: True, 60, "a first view")
        assert v["coordinator"]["online"] is False and "none is running" in v["coordinator"]["why"]
        assert host(v, "studio")["state"] == "online"  # type: ignore[index]
        assert host(v, "mini")["state"] == "offline" and host(v, "mini")["why"] == "stopped"  # type: ignore[index]
        assert v["campaigns"] == []
        w.p.send_signal(signal.SIGINT)  # no campaign given: it runs until Ctrl-C, and leaves quietly
        w.p.wait(timeout=30)
        assert w.p.returncode == 0 and "Traceback" not in (w.p.stderr.read() if w.p.stderr else "")
    finally:
        w.close()
