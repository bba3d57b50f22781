"""Overnight schedules: cron -> tz-aware windows, no late starts, one campaign per window, one beat."""
from __future__ import annotations

import subprocess
import sys
import time
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import yaml

from swarmgym.config import load_config
from swarmgym.core.errors import ConfigError
from swarmgym.queue import keys
from swarmgym.queue.schedules import beat_schedule, decide, next_fire, parse_cron, prev_fire

PARIS = ZoneInfo("Europe/Paris")


def cfg_with(tmp_path, schedules, **queue):
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"schedules": schedules, "queue": queue}))
    return load_config(tmp_path, environ={})


def test_windows_follow_the_cron_in_its_own_timezone():
    c = parse_cron("30 2 * * 1-5", "Europe/Paris")  # 02:30 Paris, weekdays
    now = datetime(2026, 11, 27, 9, 0, tzinfo=PARIS)  # a Friday
    assert prev_fire(c, now) == datetime(2026, 11, 27, 2, 30, tzinfo=PARIS)
    assert next_fire(c, now) == datetime(2026, 11, 30, 2, 30, tzinfo=PARIS)  # Monday, not Saturday
    sat = datetime(2026, 11, 28, 12, 0, tzinfo=PARIS)
    assert prev_fire(c, sat) == datetime(2026, 11, 27, 2, 30, tzinfo=PARIS)


def test_a_window_within_grace_gets_an_idempotent_campaign_id(tmp_path):
    cfg = cfg_with(tmp_path, [{"name": "nightly", "cron": "0 2 * * *", "tier": "high", "variant": "mlx",
                               "timezone": "Europe/Paris"}], schedule_grace=1800)
    at = datetime(2026, 11, 29, 2, 5, tzinfo=PARIS)
    cid, why = decide(cfg, "nightly", at)
    assert cid == "sched-nightly-202611290200"
    assert decide(cfg, "nightly", datetime(2026, 11, 29, 2, 20, tzinfo=PARIS))[0] == cid  # same window, same id


def test_a_missed_window_does_not_start_a_campaign_at_noon(tmp_path):
    cfg = cfg_with(tmp_path, [{"name": "nightly", "cron": "0 2 * * *", "tier": "high", "variant": "mlx",
                               "timezone": "Europe/Paris"}], schedule_grace=1800)
    cid, why = decide(cfg, "nightly", datetime(2026, 11, 29, 12, 0, tzinfo=PARIS))
    assert cid is None and "missed window" in why and "skipped" in why


def test_beat_entries_are_tz_aware_crontabs_plus_reconcile(tmp_path):
    cfg = cfg_with(tmp_path, [{"name": "n", "cron": "15 3 * * *", "tier": "smoke", "variant": "gguf",
                               "timezone": "America/New_York"}])
    sched = beat_schedule(cfg)
    entry = sched["schedule-n"]
    assert entry["task"] == keys.SCHEDULED_CAMPAIGN and entry["args"] == ["n"]
    assert entry["schedule"].nowfun().tzinfo == ZoneInfo("America/New_York")
    assert sched["swarmgym-reconcile"]["task"] == keys.RECONCILE


@pytest.mark.parametrize("cron,tz,msg", [("0 2 * *", "UTC", "expected 5 fields"), ("0 2 * * *", "Mars/Base", "IANA"),
                                         ("99 2 * * *", "UTC", "cron")])
def test_bad_cron_or_zone_is_a_config_error_naming_the_schedule(tmp_path, cron, tz, msg):
    cfg = cfg_with(tmp_path, [{"name": "bad", "cron": cron, "tier": "smoke", "variant": "mlx", "timezone": tz}])
    with pytest.raises(ConfigError, match=msg) as e:
        beat_schedule(cfg)
    assert "bad" in str(e.value)


def test_schedule_list_shows_the_next_run(tmp_path):
    cfg_with(tmp_path, [{"name": "nightly", "cron": "0 2 * * *", "tier": "high", "variant": "mlx",
                         "timezone": "Europe/Paris"}])
    p = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(tmp_path), "schedule", "list"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "nightly" in p.stdout and "02:00" in p.stdout and "Europe/Paris" in p.stdout


@pytest.mark.redis
def test_a_second_beat_refuses_to_run(tmp_path, rdb):
    from tests.support.queue import write_config

    write_config(tmp_path)
    env = {"SWARMGYM_HOME": str(tmp_path), "PATH": __import__("os").environ["PATH"]}
    argv = [sys.executable, "-m", "celery", "-A", "swarmgym.queue.app", "beat", "-s", str(tmp_path / "beat-{}"),
            "--loglevel", "INFO"]
    first = subprocess.Popen([a.format(1) for a in argv], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and not rdb.exists(keys.BEAT_LOCK):
            time.sleep(0.3)
        assert rdb.exists(keys.BEAT_LOCK), "the first beat never took the lock"
        second = subprocess.run([a.format(2) for a in argv], env=env, cwd=tmp_path, capture_output=True, text=True,
                                timeout=60)
        assert second.returncode != 0
        assert "exactly one beat" in second.stdout + second.stderr
        assert first.poll() is None  # the first one keeps running
    finally:
        first.terminate()
        first.wait(timeout=20)


@pytest.mark.redis
def test_a_cleanly_stopped_beat_releases_its_lock_so_a_restart_is_not_refused(tmp_path, rdb):
    import os
    import signal

    from tests.support.queue import write_config

    write_config(tmp_path)
    env = {"SWARMGYM_HOME": str(tmp_path), "PATH": os.environ["PATH"]}
    argv = [sys.executable, "-m", "celery", "-A", "swarmgym.queue.app", "beat", "-s", str(tmp_path / "beat"),
            "--loglevel", "INFO"]
    first = subprocess.Popen(argv, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and not rdb.exists(keys.BEAT_LOCK):
            time.sleep(0.2)
        assert rdb.exists(keys.BEAT_LOCK)
    finally:
        first.send_signal(signal.SIGTERM)  # what honcho / systemd send
        first.wait(timeout=30)
    assert not rdb.exists(keys.BEAT_LOCK)  # released, not left to expire
    second = subprocess.Popen(argv, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and not rdb.exists(keys.BEAT_LOCK) and second.poll() is None:
            time.sleep(0.2)
        assert second.poll() is None and rdb.exists(keys.BEAT_LOCK)
    finally:
        second.terminate()
        second.wait(timeout=30)


def test_beat_with_a_missing_home_says_so_in_one_line(tmp_path):
    import os

    env = {"SWARMGYM_HOME": str(tmp_path / "nope"), "PATH": os.environ["PATH"]}
    p = subprocess.run([sys.executable, "-m", "celery", "-A", "swarmgym.queue.app", "beat", "-s",
                        str(tmp_path / "nope" / "celerybeat-schedule")], env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode != 0
    err = (p.stderr + p.stdout).strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert "SWARMGYM_HOME" in err and "nope" in err


def test_the_example_env_keeps_the_simulator_as_the_guide_says():
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    env = (repo / "deploy" / "env.example").read_text()
    assert "\nSWARMGYM_SWARM_ADAPTER=sim\n" in env and "\nSWARMGYM_SWARM_ADAPTER=goose" not in env
    assert "keep SWARMGYM_SWARM_ADAPTER=sim" in (repo / "docs" / "fleet.md").read_text()
    assert "SWARMGYM_QUEUE_DEAD_HOST_SECS" in env


def test_schedule_list_json_gives_the_next_run_as_data(tmp_path):
    import json

    cfg_with(tmp_path, [{"name": "nightly", "cron": "0 2 * * *", "tier": "high", "variant": "mlx",
                         "timezone": "Europe/Paris"}])
    p = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(tmp_path), "schedule", "list", "--json"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    (row,) = json.loads(p.stdout)
    assert row["name"] == "nightly" and row["next_run"].endswith("+01:00") and "T02:00" in row["next_run"]
