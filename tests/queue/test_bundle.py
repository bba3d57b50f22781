"""A run folder travels to the coordinator within the cap, or its host path is recorded."""
from __future__ import annotations

import base64
import io
import os
import tarfile

from swarmgym.models import SessionDoc, Turn
from swarmgym.queue.bundle import ship, unpack
from swarmgym.reports.session import write_session


def test_a_run_folder_arrives_whole_on_the_coordinator_without_shipping_its_report(tmp_path):
    host_runs = tmp_path / "host" / "runs"
    write_session(host_runs, SessionDoc(session_id="sess-1", spec="crud", overall="pass",
                                        turns=[Turn(n=1, prompt="build <invtrack>")]))
    run = host_runs / "sess-1"
    payload, where = ship(run, cap_mb=1)
    assert payload and where == "runs/sess-1"
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(payload)), mode="r:gz") as tar:
        shipped = sorted(m.name for m in tar.getmembers() if m.isfile())
    assert shipped == ["sess-1/session.json", "sess-1/turn-1.json"]  # the page is rebuilt, not carried
    dest = unpack(payload, tmp_path / "coord" / "runs", "sess-1")
    for name in ("session.json", "turn-1.json", "report.html"):
        assert (dest / name).read_text() == (run / name).read_text(), name


def test_a_folder_without_a_readable_session_still_arrives(tmp_path):
    run = tmp_path / "host" / "runs" / "sess-3"
    run.mkdir(parents=True)
    (run / "session.json").write_text('{"not": "a session"')  # truncated: the page cannot be rendered
    payload, _ = ship(run, cap_mb=1)
    assert payload
    dest = unpack(payload, tmp_path / "coord" / "runs", "sess-3")
    assert (dest / "session.json").read_text() == '{"not": "a session"' and not (dest / "report.html").exists()


def test_a_folder_over_the_cap_stays_on_the_host_with_its_path_recorded(tmp_path):
    run = tmp_path / "runs" / "sess-2"
    run.mkdir(parents=True)
    (run / "big.bin").write_bytes(os.urandom(300_000))
    payload, where = ship(run, cap_mb=0.1)
    assert payload is None and where == str(run.resolve())
