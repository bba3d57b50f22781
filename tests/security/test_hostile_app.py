"""An app that attacks everything at once leaves only its true verdict (embedded and fleet).

The app is bench-v1's ``wrong-agg`` mutant of invtrack (its true verdict: fail), with a payload
imported by its package — so it runs inside every golden check — and run by the "swarm" too.
Each test fails if its attack worked.
"""
from __future__ import annotations

import pytest

from tests.support.groups import shared_group_name
from tests.support.hostile import FILE_MB, MAX_PROCS, tree_digest

MODES = ["embedded", "fleet"]
pytestmark = pytest.mark.slow  # a whole hostile campaign per mode (fork storms, a 2 GiB write, in every check); fleet: Celery workers


@pytest.fixture(params=[pytest.param(m, marks=pytest.mark.xdist_group(shared_group_name("tests/security", m)))
                        for m in MODES])  # one worker builds each arena (docs/testing.md)
def arena(request):
    return request.getfixturevalue(request.param)


def session_records(arena):
    return [x for x in arena.ledger_lines() if x.get("kind") == "session"]


def test_forged_ledger_line_is_not_recorded_and_the_true_fail_stands(arena):
    recs = session_records(arena)
    assert len(recs) == 1, recs  # one job, one record: its own
    rec = recs[0]
    assert rec["campaign_id"] == arena.campaign_id and rec["overall"] == "fail" and rec["functional"] is False
    assert "forged" not in (arena.home / "ledger" / "sessions.jsonl").read_text()
    assert arena.attack_report("check")["ledger"].startswith("blocked")
    assert arena.attack_report("swarm")["ledger"].startswith("blocked")


def test_every_record_names_its_isolation(arena):
    run = next((arena.home / "runs").glob("*/session.json"))
    assert '"isolation": "bwrap"' in run.read_text()


def test_proc_environ_of_ancestors_is_out_of_reach(arena):
    for mode in ("check", "swarm"):
        loot = arena.attack_report(mode)["environ"]
        assert arena.secrets["dotenv"] not in loot and arena.secrets["flower"] not in loot
        assert arena.secrets["anthropic"] not in loot and arena.secrets["redis"] not in loot
    seen = [e for e in arena.attack_report("check")["environ"].split("\n") if e.strip()]
    assert seen and all("SWARMGYM_CHECK_ID=" in e for e in seen)  # a check sees only its own box's processes


def test_dotenv_and_ssh_keys_cannot_be_read(arena):
    for mode in ("check", "swarm"):
        assert arena.attack_report(mode)["files"].startswith("blocked"), mode


def test_no_secret_in_anything_the_job_wrote_or_printed(arena):
    texts = {str(p): p.read_text(errors="replace") for p in (arena.home / "runs").rglob("*") if p.is_file()}
    texts.update({str(p): p.read_text(errors="replace") for p in arena.workspace_files() if p.stat().st_size < 1 << 20})
    texts["ledger"] = (arena.home / "ledger" / "sessions.jsonl").read_text()
    texts["output"] = arena.out
    for name, value in arena.secrets.items():
        leaked = [where for where, text in texts.items() if value in text]
        assert not leaked, f"{name} secret leaked into {leaked}"


def test_redis_is_unreachable_from_a_check_and_locked_for_the_swarm(arena, redis_server):
    assert arena.attack_report("check")["redis"].startswith("blocked")  # no network in a check's box
    swarm = arena.attack_report("swarm")["redis"]
    assert swarm.startswith("blocked") or "NOAUTH" in swarm  # the swarm may connect, but has no password
    r = redis_server.client()
    assert not [k for k in r.scan_iter(f"*{arena.token}*")]
    assert not any(arena.token in (x or "") for x in r.lrange("coordinator", 0, -1))


def test_writes_to_the_suite_the_package_tmp_and_the_root_do_not_land(arena):
    from swarmgym.isolation.policy import install_dirs

    assert tree_digest(arena.suites) == arena.suite_before
    assert not list(install_dirs()[0].glob(f"pwned_{arena.token}*"))
    assert not list(arena.home.glob(f"pwned-{arena.token}"))
    import pathlib

    assert not pathlib.Path(f"/tmp/swarmgym-pwned-{arena.token}").exists()
    outside = [p for p in arena.root.rglob(f"*{arena.token}*") if "apps" not in p.parts and p.is_file()]
    assert outside == []


def test_setsid_escapee_without_markers_and_fork_storm_do_not_outlive_the_job(arena):
    assert arena.attack_report("check")["escape"].startswith("started")  # it did try
    assert arena.alive() == []


def test_fork_storm_is_bounded_by_the_box(arena):
    n = arena.attack_report("check")["storm"]
    assert isinstance(n, int) and n < MAX_PROCS, n  # not the 4x it asked for


def test_a_2_gib_file_is_cut_at_the_file_size_limit(arena):
    big = [p for p in arena.workspace_files() if p.name.startswith("big-")]
    assert big and all(p.stat().st_size <= FILE_MB << 20 for p in big), [(p, p.stat().st_size) for p in big]
    assert arena.attack_report("check")["big_file"] <= FILE_MB << 20
    assert arena.attack_report("swarm")["big_file"] <= FILE_MB << 20  # the swarm's box bounds it too
