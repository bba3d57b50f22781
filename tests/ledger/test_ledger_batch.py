"""Batched ledger writes (group commit): order kept, duplicates skipped, a crash mid-batch loses nothing."""
from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from swarmgym.ledger import Ledger
from swarmgym.ledger.batch import GroupWriter
from swarmgym.models import LedgerRecord

REPO = Path(__file__).resolve().parents[2]


def rec(job_id: str) -> LedgerRecord:
    return LedgerRecord(session_id=f"s-{job_id}", job_id=job_id, campaign_id="c", mode="benchmark", spec="crud",
                        app_slug="invtrack",
                        variant="mlx", tier="high", host="h1", overall="pass", functional=True, ts=time.time())


def jsonl_ids(d: Path) -> list[str]:
    out = []
    for line in (d / "sessions.jsonl").read_bytes().split(b"\n"):
        try:
            out.append(json.loads(line)["job_id"])
        except (ValueError, KeyError):
            continue  # a torn line
    return out


def sqlite_ids(d: Path) -> list[str]:
    con = sqlite3.connect(d / "ledger.sqlite")
    try:
        return [r[0] for r in con.execute("SELECT job_id FROM records ORDER BY line")]
    finally:
        con.close()


def test_a_batch_is_written_in_order_and_a_job_id_seen_before_or_twice_in_it_is_skipped(tmp_path):
    led = Ledger(tmp_path)
    assert led.record(rec("a"))
    assert led.record_many([rec("b"), rec("a"), rec("c"), rec("b"), rec("d")]) == [True, False, True, False, True]
    assert jsonl_ids(tmp_path) == sqlite_ids(tmp_path) == ["a", "b", "c", "d"]
    assert [r.job_id for r in Ledger(tmp_path).last(10)] == ["a", "b", "c", "d"]


def test_group_writer_threads_share_batches_and_every_caller_learns_whether_its_record_was_new(tmp_path):
    led = Ledger(tmp_path)
    gw = GroupWriter(led)
    results: dict[str, list[bool]] = {}

    def worker(t: int) -> None:
        results[str(t)] = [gw.write(rec(f"t{t}-{i}")) for i in range(25)] + [gw.write(rec(f"t{t}-0"))]

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(v == [True] * 25 + [False] for v in results.values())
    assert gw.records == 8 * 26 and gw.batches < gw.records  # records shared batches
    ids = jsonl_ids(tmp_path)
    assert ids == sqlite_ids(tmp_path) and len(ids) == len(set(ids)) == 200
    for t in range(8):  # each thread's records in the order it wrote them
        mine = [i for i in ids if i.startswith(f"t{t}-")]
        assert mine == [f"t{t}-{i}" for i in range(25)]


WRITER = """
import sys, threading, time
from swarmgym.ledger import Ledger
from swarmgym.ledger.batch import GroupWriter
from swarmgym.models import LedgerRecord
gw = GroupWriter(Ledger(sys.argv[1]))
def go(t):
    i = 0
    while True:
        gw.write(LedgerRecord(session_id=f"s{t}-{i}", job_id=f"{sys.argv[2]}-{t}-{i}", campaign_id="c",
                              mode="benchmark", spec="x", app_slug="x", variant="mlx", tier="high", overall="pass",
                              functional=True, ts=time.time(), data={"pad": "x" * 3000}))
        i += 1
ts = [threading.Thread(target=go, args=(t,), daemon=True) for t in range(6)]
[t.start() for t in ts]
print("go", flush=True)
time.sleep(600)
"""


def test_sigkill_mid_batch_leaves_jsonl_and_sqlite_in_agreement_after_reopen_and_rebuild(tmp_path):
    for round_ in range(4):
        p = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), f"r{round_}"], stdout=subprocess.PIPE,
                             text=True, cwd=str(REPO))
        assert p.stdout.readline().strip() == "go"
        time.sleep(0.3 + 0.17 * round_)  # somewhere in the middle of some batch
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stdout.close()
        led = Ledger(tmp_path)  # reopening indexes whatever reached the jsonl
        ids = jsonl_ids(tmp_path)
        assert ids == sqlite_ids(tmp_path) and len(ids) == len(set(ids))
        assert led.count() == len(ids) > 0
    before = sqlite_ids(tmp_path)
    assert Ledger(tmp_path).rebuild() == len(before)
    assert sqlite_ids(tmp_path) == before == jsonl_ids(tmp_path)
