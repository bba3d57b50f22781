"""Copying a box's folder out: untrusted data, within its budget, never through a link."""
from __future__ import annotations

import os
import socket

from swarmgym.isolation.copyout import copy_out, replace_tree


def hostile_tree(root):
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "main.py").write_text("print(1)\n")
    os.chmod(root / "pkg" / "main.py", 0o4755)  # set-uid: never carried out
    os.symlink("/etc/shadow", root / "pkg" / "shadow.py")
    os.symlink("/", root / "rootdir")
    os.mkfifo(root / "pkg" / "fifo.py")
    cwd = os.getcwd()
    os.chdir(root)
    try:
        socket.socket(socket.AF_UNIX).bind("pkg/sock.py")
    finally:
        os.chdir(cwd)
    with open(root / "pkg" / "big.py", "wb") as f:
        f.write(b"# TODO\n")
        f.truncate(2 << 30)


def test_links_are_copied_as_links_special_files_stay_behind_and_a_sparse_file_stays_sparse(tmp_path):
    hostile_tree(tmp_path / "box")
    got = copy_out(tmp_path / "box", tmp_path / "out", max_bytes=3 << 30)
    out = tmp_path / "out"
    assert sorted(os.listdir(out / "pkg")) == ["big.py", "main.py", "shadow.py"]
    assert os.readlink(out / "pkg" / "shadow.py") == "/etc/shadow" and os.readlink(out / "rootdir") == "/"
    assert (out / "pkg" / "main.py").read_text() == "print(1)\n"
    assert os.stat(out / "pkg" / "main.py").st_mode & 0o7777 == 0o755
    big = os.stat(out / "pkg" / "big.py")
    assert big.st_size == 2 << 30 and big.st_blocks * 512 < 1 << 20  # 2 GB apparent, a few KB on disk
    assert got.skipped == 2 and not got.over_bytes


def test_a_file_past_the_budget_is_left_out_and_named_over_budget(tmp_path):
    hostile_tree(tmp_path / "box")
    got = copy_out(tmp_path / "box", tmp_path / "out", max_bytes=1 << 20)
    assert got.over_bytes and not (tmp_path / "out" / "pkg" / "big.py").exists()
    assert (tmp_path / "out" / "pkg" / "main.py").is_file()


def test_entries_past_the_cap_stop_the_copy(tmp_path):
    (tmp_path / "box").mkdir()
    for i in range(50):
        (tmp_path / "box" / f"f{i}").write_text("x")
    got = copy_out(tmp_path / "box", tmp_path / "out", max_bytes=1 << 20, max_entries=10)
    assert got.over_entries and len(os.listdir(tmp_path / "out")) == 10


def test_the_copy_replaces_the_old_folder_whole(tmp_path):
    old, fresh = tmp_path / "ws", tmp_path / "ws.new"
    old.mkdir()
    (old / "deleted-in-the-box.py").write_text("x")
    fresh.mkdir()
    (fresh / "kept.py").write_text("y")
    replace_tree(fresh, old)
    assert os.listdir(old) == ["kept.py"] and not fresh.exists()
    assert not (tmp_path / "ws.swarmgym-old").exists()
