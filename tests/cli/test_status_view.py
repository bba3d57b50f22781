"""What ``status`` and ``workers`` show, from the campaign state alone (no Redis, no ledger)."""
from __future__ import annotations

import time

from rich.console import Console

from swarmgym.cli import status_view
from swarmgym.queue.progress import CampaignState

ST = CampaignState.model_validate({
    "campaign_id": "c1", "status": "running", "variant": "mlx", "tier": "smoke", "planned": 4, "recorded": 2,
    "running": 1, "queued": 1, "stale": 0, "outcomes": {"pass": 1, "fail": 1, "error": 0},
    "recent": [{"job": "c1-1", "s": "done", "host": "studio", "overall": "pass", "ts": time.time() - 5}],
    "running_jobs": {"c1-2": {"host": "studio", "since": time.time() - 300}},
    "problems": [{"job_id": "c1-0", "overall": "fail", "host": "studio", "reason": "checks failed"}]})


def with_(st: CampaignState, **changes) -> CampaignState:
    return CampaignState.model_validate({**st.model_dump(), **changes})


def render(table) -> str:
    console = Console(width=200, record=True)
    console.print(table)
    return console.export_text()


def test_the_summary_line_counts_what_happened():
    assert status_view.summary(ST) == ("c1: mlx/smoke running; 2/4 recorded (fail 1, pass 1), 1 running, 1 queued")
    lost = with_(ST, stale=2, lost={"c1-3": {}}, variant=None)
    assert status_view.summary(lost) == ("c1: running; 2/4 recorded (fail 1, pass 1), 1 running, 1 queued, 2 stale, "
                                         "1 re-sent from silent hosts")


def test_the_tables_show_the_last_changes_the_running_jobs_and_the_problems():
    now = time.time()  # the times as the test runs, not as the module was imported minutes before
    st = with_(ST, recent=[{**ST.recent[0], "ts": now - 5}], running_jobs={"c1-2": {"host": "studio",
                                                                                  "since": now - 300}})
    assert "c1-1" in render(status_view.recent_table(st)) and "s ago" in render(status_view.recent_table(st))
    assert "c1-2" in (running := render(status_view.running_table(st))) and "5m ago" in running
    problems = status_view.problems_table(st)
    assert problems is not None and "checks failed" in render(problems)
    assert status_view.problems_table(with_(st, problems=[])) is None


def test_json_state_carries_the_campaign_record_as_json_and_every_job_only_when_asked():
    out = status_view.json_state(with_(ST, campaign_record=None))
    assert out["campaign_record"] is None and "jobs" not in out
    assert status_view.json_state(ST, iter([{"job_id": "c1-0"}]))["jobs"] == [{"job_id": "c1-0"}]


def test_ago_is_a_dash_for_no_time():
    assert status_view.ago(None) == "-" and status_view.ago("x") == "-"


def test_the_fleet_commands_import_as_click_commands():
    from swarmgym.cli import fleet_cmd

    assert [c.name for c in fleet_cmd.COMMANDS] == ["enqueue", "status", "resume", "cancel", "workers", "worker",
                                                    "schedule"]
