"""``swarmgym supervise`` keeps each Procfile process running on its own (issue #33): real processes,
real signals — one process's death never stops the others, and SIGTERM stops them all."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest

from swarmgym.core.errors import UsageError
from swarmgym.workers.supervise import parse_procfile
from tests.support.queue import REPO, wait_until


def _pids(folder: Path) -> dict[str, int]:
    out = {}
    for f in folder.glob("*.pid"):
        try:
            out[f.stem] = int(f.read_text())
        except ValueError:
            continue
    return out


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@pytest.fixture
def stack(tmp_path):
    """A Procfile of three long-running processes, each writing its pid, under ``swarmgym supervise``."""
    run = tmp_path / "run"
    run.mkdir()
    (tmp_path / "Procfile").write_text(
        "# three services\n"
        + "".join(f"{n}: echo $$ > {run}/{n}.pid; echo {n} up; exec sleep 300\n" for n in ("coord", "mlx", "gguf")))
    p = subprocess.Popen([sys.executable, "-m", "swarmgym", "--home", str(tmp_path), "supervise", "--procfile",
                          str(tmp_path / "Procfile"), "--stop-timeout", "5"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    yield p, run
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def test_a_killed_process_is_restarted_and_the_others_keep_running(stack):
    sup, run = stack
    first = wait_until(lambda: _pids(run) if len(_pids(run)) == 3 else None, 30, 0.1, "three processes up")
    os.kill(first["mlx"], signal.SIGKILL)  # a host dies
    again = wait_until(lambda: _pids(run) if _pids(run).get("mlx") not in (None, first["mlx"]) else None, 30, 0.1,
                       "mlx restarted")
    assert _alive(again["mlx"])
    assert again["coord"] == first["coord"] and _alive(first["coord"])  # never stopped, never restarted
    assert again["gguf"] == first["gguf"] and _alive(first["gguf"])
    assert sup.poll() is None

    sup.send_signal(signal.SIGTERM)  # stopping the supervisor stops every process
    out, _ = sup.communicate(timeout=30)
    assert sup.returncode == 0
    assert "mlx" in out and "exited with -9" in out and "restarting in 1s" in out, out
    for pid in (again["mlx"], first["coord"], first["gguf"]):
        assert wait_until(lambda pid=pid: not _alive(pid), 10, 0.1, f"pid {pid} gone")


def test_a_process_that_keeps_exiting_waits_longer_each_time_while_the_others_run(tmp_path):
    (tmp_path / "Procfile").write_text(f"bad: exit 3\ngood: echo $$ > {tmp_path}/good.pid; exec sleep 300\n")
    p = subprocess.Popen([sys.executable, "-m", "swarmgym", "--home", str(tmp_path), "supervise", "--procfile",
                          str(tmp_path / "Procfile"), "--restart-max", "4"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: [lines.append(x) for x in p.stdout], daemon=True)
    reader.start()
    try:
        good = int(wait_until(lambda: (tmp_path / "good.pid").exists() and (tmp_path / "good.pid").read_text(),
                              30, 0.1, "good up"))
        # bad exits at once: restarted after 1, 2, 4, 4 s (the fourth wait is said when the fourth exit comes)
        wait_until(lambda: sum("restarting in" in x for x in lines) >= 4, 30, 0.1, "bad restarted four times")
        assert _alive(good)
    finally:
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
        reader.join(timeout=30)
    out = "".join(lines)
    waits = [line.rsplit("restarting in ", 1)[1].split("s")[0] for line in out.splitlines() if "restarting in" in line]
    assert waits[:3] == ["1", "2", "4"] and set(waits[3:]) <= {"4"}, out
    assert not [x for x in out.splitlines() if " good " in x and "exited" in x], out


def test_a_bad_procfile_is_one_line_naming_the_file_and_line(tmp_path):
    bad = tmp_path / "Procfile"
    bad.write_text("web: run\nthis is not a process line\n")
    with pytest.raises(UsageError, match=r"Procfile:2: expected `name: command`"):
        parse_procfile(bad)
    p = subprocess.run([sys.executable, "-m", "swarmgym", "supervise", "--procfile", str(bad)], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2 and "Procfile:2: expected" in p.stderr and "Traceback" not in p.stderr


def test_the_shipped_procfile_names_the_whole_local_stack_and_keeps_secrets_off_argv():
    entries = {e.name: e.command for e in parse_procfile(REPO / "Procfile")}
    assert set(entries) == {"coordinator", "mlx", "gguf", "flower", "beat"}
    assert "--basic-auth" not in entries["flower"] and "FLOWER_BASIC_AUTH" in entries["flower"]
