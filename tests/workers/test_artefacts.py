"""A run folder travels to the coordinator within the cap, or its host path is recorded."""
from __future__ import annotations

import os

from swarmgym.workers.artefacts import ship, unpack


def test_a_small_run_folder_is_shipped_and_unpacked_on_the_coordinator(tmp_path):
    run = tmp_path / "host" / "runs" / "sess-1"
    run.mkdir(parents=True)
    (run / "session.json").write_text('{"ok": true}')
    (run / "report.html").write_text("<html></html>")
    payload, where = ship(run, cap_mb=1)
    assert payload and where == "runs/sess-1"
    dest = unpack(payload, tmp_path / "coord" / "runs", "sess-1")
    assert (dest / "session.json").read_text() == '{"ok": true}' and (dest / "report.html").is_file()


def test_a_folder_over_the_cap_stays_on_the_host_with_its_path_recorded(tmp_path):
    run = tmp_path / "runs" / "sess-2"
    run.mkdir(parents=True)
    (run / "big.bin").write_bytes(os.urandom(300_000))
    payload, where = ship(run, cap_mb=0.1)
    assert payload is None and where == str(run.resolve())
