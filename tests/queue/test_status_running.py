"""``status`` names the host of every running job (issue #22): hosts mark their jobs running exactly as
``workers/tasks.py`` does (:func:`swarmgym.queue.store.mark_job`), on a real Redis."""
from __future__ import annotations

import json

import pytest

from swarmgym.config import load_config
from swarmgym.queue import counters, keys, store
from swarmgym.queue.redis_util import for_config
from tests.support.queue import cli, plan

pytestmark = pytest.mark.redis


def test_status_names_the_host_of_every_running_job_even_past_the_last_changes(home, rdb):
    camp = plan(home, "night", 40)
    r = for_config(load_config(home))
    running = {camp.jobs[0].job_id: "studio", camp.jobs[1].job_id: "gguf-box"}
    for jid, host in running.items():
        store.mark_job(r, "night", jid, "running", host=host, task_id=jid)
    for j in camp.jobs[2:32]:  # 30 later changes push the running ones out of the last-changes list
        counters.record(r, "night", j.job_id, host="mini", overall="pass")

    out = cli(home, "status", "night").stdout
    for jid, host in running.items():
        [line] = [x for x in out.splitlines() if jid in x]  # the running table's row
        assert host in line, out
    st = json.loads(cli(home, "status", "night", "--json").stdout)
    assert {j: x["host"] for j, x in st["running_jobs"].items()} == running


def test_the_last_changes_show_the_host_a_job_started_on(home, rdb):
    camp = plan(home, "night", 3)
    r = for_config(load_config(home))
    store.mark_job(r, "night", camp.jobs[0].job_id, "running", host="studio", task_id="t1")
    st = json.loads(cli(home, "status", "night", "--json").stdout)
    assert st["recent"][0]["s"] == "running" and st["recent"][0]["host"] == "studio"


def test_a_job_leaves_the_running_table_when_it_is_recorded_or_taken_back(home, rdb):
    camp = plan(home, "night", 3)
    r = for_config(load_config(home))
    a, b = camp.jobs[0].job_id, camp.jobs[1].job_id
    store.mark_job(r, "night", a, "running", host="studio", task_id="t1")
    store.mark_job(r, "night", b, "running", host="mini", task_id="t2")
    counters.record(r, "night", a, host="studio", overall="pass")
    store.mark_job(r, "night", b, "queued", task_id="t3", requeued=True)  # a dead host's job, re-sent
    snap = counters.snapshot(r, "night")
    assert snap["running_jobs"] == {} and snap["running"] == 0
    counters.summarize(r, "night", ttl=60)
    assert not r.exists(keys.campaign_running("night"))
