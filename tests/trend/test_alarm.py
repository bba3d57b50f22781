"""The morning after, end to end with ``swarmgym bench`` (issue #22): a night that regressed is stored with
its numbers and runs the schedule's ``on_change`` command; a night that did not stays quiet."""
from __future__ import annotations

import json

import pytest

from swarmgym.ledger import Ledger
from tests.support.trend import BROKEN, WORKS, swarmgym, write_home

NO_BROKER = {"SWARMGYM_BROKER_URL": "redis://127.0.0.1:1/0"}  # status falls back to the ledger


def nightly(home, command, on_change, **sched):
    return write_home(home, command, schedules=[{"name": "nightly", "cron": "0 2 * * *", "tier": "medium",
                                                 "variant": "mlx", "on_change": on_change, **sched}],
                      trend={"alarm_timeout": 2})


def bench(home):
    r = swarmgym(home, "bench", "--schedule", "nightly")
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def campaign_records(home):
    return Ledger(home / "ledger").records(kind="campaign")


@pytest.mark.slow
def test_a_regressed_night_is_stored_and_wakes_someone_up_with_the_numbers(tiny_home):
    save = ["sh", "-c", "cat > alarm.json"]
    nightly(tiny_home, WORKS, save)
    first = bench(tiny_home)
    assert "change: first campaign of schedule:nightly" in first.stdout
    assert not (tiny_home / "alarm.json").exists()
    bench(tiny_home)
    assert not (tiny_home / "alarm.json").exists()       # the same build again: quiet
    nightly(tiny_home, BROKEN, save)                      # a new build that no longer writes the file
    r = bench(tiny_home)
    assert "change: regressed: 0/15 = 0% vs 30/30 = 100%" in r.stdout and "alarm (regressed): ran" in r.stdout

    recs = campaign_records(tiny_home)
    assert [x.change.verdict for x in recs] == ["not comparable", "no change", "regressed"]
    last = recs[-1]
    assert last.change.schedule == "nightly" and last.change.baseline == [recs[1].campaign_id, recs[0].campaign_id]
    sent = json.loads((tiny_home / "alarm.json").read_text())
    assert sent["campaign_id"] == last.campaign_id and sent["verdict"] == "regressed"
    assert sent["overall"]["passes"] == 0 and sent["overall"]["base_passes"] == 30 and sent["overall"]["p"] < 0.01
    assert sent["specs"][0]["spec"] == "touch" and sent["status_command"] == f"swarmgym status {last.campaign_id}"

    st = swarmgym(tiny_home, "status", last.campaign_id, env=NO_BROKER)
    assert st.returncode == 0, st.stderr
    assert "change: regressed: 0/15 = 0% vs 30/30 = 100%" in st.stdout
    rep = swarmgym(tiny_home, "report", "-n", "3")
    assert "regressed" in rep.stdout and last.campaign_id in rep.stdout


@pytest.mark.slow
def test_an_improvement_alarms_only_when_asked(tiny_home):
    save = ["sh", "-c", "cat > alarm.json"]
    nightly(tiny_home, BROKEN, save)
    bench(tiny_home)
    nightly(tiny_home, WORKS, save)
    r = bench(tiny_home)
    assert "change: improved" in r.stdout and not (tiny_home / "alarm.json").exists()
    nightly(tiny_home, BROKEN, save, on_change_when=["regressed", "improved"])
    bench(tiny_home)
    nightly(tiny_home, WORKS, save, on_change_when=["regressed", "improved"])
    bench(tiny_home)
    assert json.loads((tiny_home / "alarm.json").read_text())["verdict"] == "improved"


@pytest.mark.slow
def test_a_failing_alarm_is_retried_once_logged_and_loses_nothing(tiny_home):
    count_and_fail = ["sh", "-c", "n=$(cat tries 2>/dev/null || echo 0); echo $((n + 1)) > tries; cat > /dev/null; exit 3"]
    nightly(tiny_home, WORKS, count_and_fail)
    bench(tiny_home)
    nightly(tiny_home, BROKEN, count_and_fail)
    r = bench(tiny_home)
    assert (tiny_home / "tries").read_text().strip() == "2"
    assert "failed 2 times (exit 3)" in r.stdout
    assert campaign_records(tiny_home)[-1].change.verdict == "regressed"   # the record was written first


@pytest.mark.slow
def test_a_flaky_alarm_succeeds_on_its_second_try_and_a_hung_one_is_killed(tiny_home):
    flaky = ["sh", "-c", "if [ -e tried ]; then cat > alarm.json; else touch tried; exit 1; fi"]
    nightly(tiny_home, WORKS, flaky)
    bench(tiny_home)
    nightly(tiny_home, BROKEN, flaky)
    r = bench(tiny_home)
    assert "(second try)" in r.stdout and json.loads((tiny_home / "alarm.json").read_text())["verdict"] == "regressed"
    nightly(tiny_home, WORKS, ["sleep", "30"])
    bench(tiny_home)
    nightly(tiny_home, BROKEN, ["sleep", "30"])
    r = bench(tiny_home)
    assert "failed 2 times (killed after 2s)" in r.stdout


def test_on_change_must_be_a_list_of_strings(tiny_home):
    nightly(tiny_home, WORKS, "curl -d @- https://example.invalid")
    r = swarmgym(tiny_home, "bench", "--schedule", "nightly")
    assert r.returncode == 2 and "schedules.0.on_change" in r.stderr and "valid list" in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    nightly(tiny_home, WORKS, ["curl", 3])
    r = swarmgym(tiny_home, "bench", "--schedule", "nightly")
    assert r.returncode == 2 and "schedules.0.on_change.1" in r.stderr


def test_bench_schedule_names_a_schedule_that_exists_and_keeps_its_tier(tiny_home):
    nightly(tiny_home, WORKS, [])
    r = swarmgym(tiny_home, "bench", "--schedule", "weekly")
    assert r.returncode == 2 and "--schedule 'weekly': no such schedule (known: nightly)" in r.stderr
    r = swarmgym(tiny_home, "bench", "--schedule", "nightly", "--tier", "smoke")
    assert r.returncode == 2 and "schedule 'nightly' runs tier 'medium'" in r.stderr
