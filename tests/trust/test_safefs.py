"""safefs: the host reads a workspace's own regular files only — never a link, a FIFO, a socket —
and caps what it reads before reading."""
from __future__ import annotations

import os
import socket
import threading

import psutil

from swarmgym.trust import safefs


def _tree(ws, outside):
    (ws / "src" / "deep").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("a = 1\n")
    (ws / "src" / "deep" / "b.py").write_text("b = 2\n")
    (outside / "secret.txt").write_text("outside-secret\n")
    os.symlink(outside / "secret.txt", ws / "src" / "leak.py")
    os.symlink(outside, ws / "src" / "outdir")
    os.symlink("a.py", ws / "src" / "inner-link.py")  # even a link that stays inside is not followed
    os.mkfifo(ws / "src" / "fifo.py")
    cwd = os.getcwd()
    os.chdir(ws)
    try:
        socket.socket(socket.AF_UNIX).bind("src/sock.py")
    finally:
        os.chdir(cwd)


def test_only_regular_files_are_listed_and_links_fifos_and_sockets_are_counted(tmp_path):
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir(), outside.mkdir()
    _tree(ws, outside)
    got = safefs.list_files(ws)
    assert [f.rel for f in got.files] == ["src/a.py", "src/deep/b.py"]
    assert got.skipped == {"symlink": 3, "fifo": 1, "socket": 1} and not got.truncated


def test_reading_a_fifo_or_a_link_returns_nothing_and_never_blocks(tmp_path):
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir(), outside.mkdir()
    _tree(ws, outside)
    done = threading.Event()

    def read_all():
        for rel in ("src/fifo.py", "src/leak.py", "src/inner-link.py", "src/outdir/secret.txt", "src/sock.py"):
            assert safefs.read_bytes(ws, rel, 1 << 20) is None
        done.set()

    t = threading.Thread(target=read_all, daemon=True)
    t.start()
    t.join(60)  # a safety net: a blocked open of the FIFO would never return
    assert done.is_set()
    assert safefs.read_text(ws, "src/a.py", 100) == "a = 1\n"


def test_a_folder_swapped_for_a_link_is_not_followed(tmp_path):
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir(), outside.mkdir()
    (outside / "b.py").write_text("outside-secret\n")
    os.symlink(outside, ws / "deep")  # ws/deep/b.py "exists" through the link
    assert (ws / "deep" / "b.py").read_text() == "outside-secret\n"
    assert safefs.read_bytes(ws, "deep/b.py", 100) is None and not safefs.is_file(ws, "deep/b.py")
    assert safefs.read_bytes(ws, "../outside/b.py", 100) is None and safefs.glob(ws, "/etc/passwd") == []


def test_a_2_gb_sparse_file_is_read_up_to_its_cap_only(tmp_path):
    with open(tmp_path / "big.py", "wb") as f:
        f.write(b"# TODO\n")
        f.truncate(2 << 30)
    before = psutil.Process().memory_info().rss
    data, cut = safefs.read_bytes(tmp_path, "big.py", 512 * 1024)
    assert len(data) == 512 * 1024 and cut and data.startswith(b"# TODO")
    assert psutil.Process().memory_info().rss - before < 64 << 20
    assert safefs.sha256(tmp_path, "big.py", 64 << 20) == ""  # over the hash cap: not read at all


def test_file_and_entry_caps_stop_the_walk_and_say_so(tmp_path):
    for i in range(30):
        (tmp_path / f"f{i:02d}.txt").write_text(str(i))
    few = safefs.list_files(tmp_path, max_files=5)
    assert [f.rel for f in few.files] == [f"f{i:02d}.txt" for i in range(5)] and few.truncated
    capped = safefs.list_files(tmp_path, max_entries=10)
    assert capped.truncated and len(capped.files) <= 10 and "more than 10 entries" in capped.problems[0]


def test_deep_folders_stop_at_the_depth_cap(tmp_path):
    d = tmp_path
    for _ in range(50):
        d = d / "d"
    d.mkdir(parents=True)
    (d / "x.py").write_text("x")
    got = safefs.list_files(tmp_path, max_depth=10)
    assert got.files == [] and got.truncated


def test_glob_follows_pathlib_semantics_on_regular_files_only(tmp_path):
    (tmp_path / "tests" / "sub").mkdir(parents=True)
    for rel in ("tests/test_a.py", "tests/sub/test_b.py", "tests/helper.py", "README.md"):
        (tmp_path / rel).write_text("x")
    os.symlink(tmp_path / "README.md", tmp_path / "tests" / "test_link.py")
    assert safefs.glob(tmp_path, "tests/test_*.py") == ["tests/test_a.py"]
    assert safefs.glob(tmp_path, "tests/**/test_*.py") == ["tests/sub/test_b.py", "tests/test_a.py"]
    assert safefs.glob(tmp_path, "README.md") == ["README.md"]
    assert safefs.glob(tmp_path, "tests/test_link.py") == []
