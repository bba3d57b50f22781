"""The ledger: idempotent by job_id, jsonl is the truth, SQLite index rebuilt from it."""
from __future__ import annotations

import json
import logging
import multiprocessing as mp
import sqlite3
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from swarmgym.cli import cli
from swarmgym.core.errors import LedgerError
from swarmgym.ledger import Ledger, campaign_record, record_from_result
from swarmgym.models import (
    LEDGER_SCHEMA_VERSION,
    DimensionResult,
    ErrorInfo,
    Finding,
    JobResult,
    JobSpec,
    LedgerRecord,
    Verdict,
)


def rec(i: int, **kw) -> LedgerRecord:
    base = dict(session_id=f"sess-{i}", job_id=f"c1:{i:04d}", campaign_id="c1", mode="benchmark", spec="crud",
                app_slug="invtrack", variant="mlx", tier="medium", rep=i, suite="bench-v1", suite_hash="h1",
                overall="pass", functional=True, dimensions={"checks": "pass"}, wall_secs=10.0 + i, ts=1.7e9 + i)
    base.update(kw)
    return LedgerRecord(**base)


def jsonl_lines(d) -> list[str]:
    return (d / "sessions.jsonl").read_text().splitlines()


def test_recording_the_same_job_twice_changes_nothing(tmp_path):
    lg = Ledger(tmp_path)
    assert lg.record(rec(1)) is True
    assert lg.record(rec(1, overall="fail", functional=False)) is False
    assert Ledger(tmp_path).record(rec(1, overall="error")) is False  # a second instance too
    assert len(jsonl_lines(tmp_path)) == 1
    [only] = Ledger(tmp_path).records()
    assert (only.overall, only.functional) == ("pass", True)
    assert lg.has_job("c1:0001") and not lg.has_job("c1:0002")


def test_a_campaign_record_is_written_once_and_kept_apart_from_sessions(tmp_path):
    lg = Ledger(tmp_path)
    lg.record(rec(1))
    first = campaign_record("c1", variant="mlx", tier="medium", overall="partial",
                            findings=[Finding(severity="medium", dimension="cluster", message="gpu-b idle")])
    assert lg.record(first) is True
    assert lg.record(campaign_record("c1", variant="mlx", tier="medium", overall="pass")) is False
    [camp] = lg.records(kind="campaign")
    assert camp.job_id == "campaign:c1" and camp.overall == "partial"
    assert camp.data["findings"][0]["message"] == "gpu-b idle"
    assert [r.job_id for r in lg.records()] == ["c1:0001"]
    assert lg.job_ids("c1") == ["c1:0001"]


def test_torn_last_line_is_skipped_with_a_warning_and_the_next_record_starts_a_fresh_line(tmp_path, caplog):
    lg = Ledger(tmp_path)
    lg.record(rec(1))
    lg.record(rec(2))
    with open(tmp_path / "sessions.jsonl", "ab") as fh:
        fh.write(b'{"schema_version": 1, "kind": "session", "session_id": "sess-3", "job_')  # crash mid-write
    caplog.set_level(logging.WARNING, logger="swarmgym.ledger")
    lg2 = Ledger(tmp_path)
    assert "incomplete" in caplog.text and "sessions.jsonl:3" in caplog.text
    assert [r.job_id for r in lg2.records()] == ["c1:0001", "c1:0002"]
    assert lg2.record(rec(4)) is True
    lines = jsonl_lines(tmp_path)
    assert len(lines) == 4 and lines[2].endswith('"job_')
    assert json.loads(lines[3])["job_id"] == "c1:0004"
    caplog.clear()
    (tmp_path / "ledger.sqlite").unlink()
    assert [r.job_id for r in Ledger(tmp_path).records()] == ["c1:0001", "c1:0002", "c1:0004"]
    assert "sessions.jsonl:3" in caplog.text and "skipped" in caplog.text


def test_rebuild_recreates_exactly_the_original_index(tmp_path):
    lg = Ledger(tmp_path)
    for i in range(25):
        lg.record(rec(i, variant="mlx" if i % 2 else "gguf", functional=bool(i % 3)))
    lg.record(campaign_record("c1", variant="mlx", tier="medium", overall="pass"))
    before = [r.model_dump() for r in lg.records(kind=None)]
    dump = sqlite3.connect(tmp_path / "ledger.sqlite").execute("SELECT * FROM records ORDER BY line").fetchall()
    assert lg.rebuild() == 26
    assert [r.model_dump() for r in lg.records(kind=None)] == before
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / f"ledger.sqlite{suffix}").unlink(missing_ok=True)
    fresh = Ledger(tmp_path)
    assert [r.model_dump() for r in fresh.records(kind=None)] == before
    assert sqlite3.connect(tmp_path / "ledger.sqlite").execute("SELECT * FROM records ORDER BY line").fetchall() == dump


def test_an_index_behind_the_jsonl_catches_up_on_open(tmp_path):
    lg = Ledger(tmp_path)
    lg.record(rec(1))
    with open(tmp_path / "sessions.jsonl", "a") as fh:  # appended, then crashed before the index insert
        fh.write(rec(2).model_dump_json() + "\n")
    assert Ledger(tmp_path).has_job("c1:0002")


def test_a_damaged_index_is_rebuilt_from_the_jsonl(tmp_path, caplog):
    Ledger(tmp_path).record(rec(1))
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"ledger.sqlite{suffix}").unlink(missing_ok=True)
    (tmp_path / "ledger.sqlite").write_bytes(b"this is not a database" * 100)
    assert Ledger(tmp_path).has_job("c1:0001")
    assert "damaged index" in caplog.text


def test_a_record_from_a_newer_schema_is_a_clear_error(tmp_path):
    line = rec(1).model_dump() | {"schema_version": LEDGER_SCHEMA_VERSION + 1, "new_field": 1}
    (tmp_path / "sessions.jsonl").write_text(json.dumps(line) + "\n")
    with pytest.raises(LedgerError, match=rf"sessions.jsonl:1: schema_version {LEDGER_SCHEMA_VERSION + 1} is newer.*upgrade swarmgym"):
        Ledger(tmp_path)


def test_last_returns_the_most_recent_sessions_oldest_first(tmp_path):
    lg = Ledger(tmp_path)
    for i in range(10):
        lg.record(rec(i))
    lg.record(campaign_record("c1", variant="mlx", tier="medium", overall="pass"))
    assert [r.rep for r in lg.last(3)] == [7, 8, 9]
    assert [r.job_id for r in lg.find("sess-4")] == ["c1:0004"]
    assert [r.rep for r in lg.records(variant="mlx", campaign_id="c1")][:2] == [0, 1]
    assert lg.records(variant="gguf") == []


def _hold_lock(path, ready, release):
    import fcntl
    import os
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, f"{os.getpid()}\n".encode())
    ready.set()
    release.wait(10)


def test_a_second_writer_waits_briefly_then_gets_a_clear_error(tmp_path):
    lg = Ledger(tmp_path, lock_timeout=0.3)
    (tmp_path / ".lock").write_text("987654321\n")  # a longer pid left by an earlier writer: the holder overwrites only its head
    ctx = mp.get_context("fork")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold_lock, args=(tmp_path / ".lock", ready, release))
    holder.start()
    try:
        assert ready.wait(5)
        t0 = time.monotonic()
        with pytest.raises(LedgerError, match=rf"another process \(pid {holder.pid}\).*only one process may write"):
            lg.record(rec(1))
        assert time.monotonic() - t0 >= 0.25
    finally:
        release.set()
        holder.join(5)
    assert lg.record(rec(1)) is True  # lock free again: the write goes through


def _writer(path, n):
    lg = Ledger(path)
    for i in range(n):
        lg.record(rec(i))


def _reader(path, rounds, out):
    seen: list = []
    try:
        for _ in range(rounds):
            recs = Ledger(path).records()
            bad = [r.job_id for r in recs if r.job_id != f"c1:{r.rep:04d}"]
            seen.append(len(recs) if not bad else f"mismatched {bad[:3]}")
    except Exception as e:  # reported to the test, not lost in a child's stderr
        seen.append(f"{type(e).__name__}: {e}")
    out.put(seen)


@pytest.mark.slow  # spawns reader processes over a growing ledger
def test_readers_see_a_consistent_growing_ledger_while_it_is_written(tmp_path):
    Ledger(tmp_path)
    # spawn, not fork: fresh processes, like the real reader (`status`) and writer (the coordinator);
    # a fork of the test process would inherit whatever lock an earlier test's leftover thread held
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    writer = ctx.Process(target=_writer, args=(tmp_path, 150))
    readers = [ctx.Process(target=_reader, args=(tmp_path, 40, out)) for _ in range(2)]
    for p in [writer, *readers]:
        p.start()
    results = [out.get(timeout=180) for _ in readers]
    for p in [writer, *readers]:
        p.join(60)
        assert p.exitcode == 0
    for seen in results:
        assert all(isinstance(n, int) for n in seen), seen
        assert seen == sorted(seen)  # never goes backwards, never a half-written record
    assert Ledger(tmp_path).count() == 150


def _job(**kw) -> JobSpec:
    return JobSpec(job_id="c9:0003", campaign_id="c9", suite="bench-v1", suite_hash="h1", spec="txn",
                   app_slug="txkvbench", variant="gguf", tier="high", rep=3, flags={"GOOSE_SWARM_GOALS": "1"}, **kw)


def test_record_from_result_takes_statuses_from_the_verdict():
    verdict = Verdict(overall="partial", functional=True, dimensions={
        "checks": DimensionResult(name="checks", status="pass"),
        "cluster": DimensionResult(name="cluster", status="partial")},
        findings=[Finding(severity="medium", dimension="cluster", message="idle")])
    result = JobResult(job=_job(), session_id="s-9", host="mac-2", verdict=verdict, wall_secs=61.5, exit_code=0,
                       tasks_done=7, tasks_failed=1, per_device={"a": 5, "b": 2}, idle_nodes=["b"], finished=1.8e9)
    r = record_from_result(result)
    assert (r.overall, r.functional, r.dimensions) == ("partial", True, {"checks": "pass", "cluster": "partial"})
    assert (r.job_id, r.session_id, r.host, r.variant, r.spec, r.rep, r.suite_hash) == \
        ("c9:0003", "s-9", "mac-2", "gguf", "txn", 3, "h1")
    assert r.flags == {"GOOSE_SWARM_GOALS": "1"} and r.idle_nodes == ["b"] and r.per_device == {"a": 5, "b": 2}
    assert (r.wall_secs, r.exit_code, r.tasks_done, r.tasks_failed, r.ts) == (61.5, 0, 7, 1, 1.8e9)
    assert r.error is None and r.data["findings"] == {"medium": 1}


def test_an_errored_job_is_recorded_as_error_and_a_timed_out_one_as_fail():
    err = JobResult(job=_job(), session_id="s", host="h", status="error",
                    error=ErrorInfo(type="AdapterError", message="goose binary not found"))
    r = record_from_result(err)
    assert (r.overall, r.functional, r.error.type) == ("error", False, "AdapterError")
    t = record_from_result(JobResult(job=_job(), session_id="s", host="h", status="timeout", wall_secs=7200,
                                     exit_code=124))
    assert (t.overall, t.functional, t.exit_code, t.error.type) == ("fail", False, 124, "Timeout")
    lost = record_from_result(JobResult(job=_job(), session_id="s", host="h"))  # done but no verdict
    assert lost.overall == "error" and "no verdict" in lost.error.message


def test_ledger_cli_rebuild_and_show(tmp_path):
    lg = Ledger(tmp_path / "ledger")
    for i in range(3):
        lg.record(rec(i))
    runner = CliRunner()
    res = runner.invoke(cli, ["--home", str(tmp_path), "ledger", "rebuild"])
    assert res.exit_code == 0 and "3 records" in res.output
    res = runner.invoke(cli, ["--home", str(tmp_path), "ledger", "show", "sess-2"])
    assert res.exit_code == 0 and json.loads(res.output)["job_id"] == "c1:0002"
    res = runner.invoke(cli, ["--home", str(tmp_path), "ledger", "show", "c1:0001"])
    assert json.loads(res.output)["session_id"] == "sess-1"
    res = runner.invoke(cli, ["--home", str(tmp_path), "ledger", "show", "nope"])
    assert res.exit_code == 2 and "no ledger record" in res.output and "Traceback" not in res.output


def test_the_installed_cli_exits_2_without_traceback_for_an_unknown_record(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(tmp_path), "ledger", "show", "x"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "JOB_OR_SESSION 'x'" in proc.stderr
